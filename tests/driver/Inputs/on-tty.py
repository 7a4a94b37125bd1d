"""Runs a command with its standard error on a pseudo-terminal (as a user's
terminal) and its standard output on a pipe, then prints the standard output,
a line "--- stderr (terminal) ---", what reached the terminal with the
control characters made visible ("\\r" as <CR>, ESC [ K as <EL>, any other
ESC as <ESC>) and "exit N". usage: on-tty.py COMMAND [ARG...]"""
import os
import pty
import struct
import subprocess
import sys
import threading

try:
    import fcntl
    import termios
except ImportError:  # not a POSIX system: nothing to test here
    sys.exit("on-tty.py needs a POSIX system")

master, slave = pty.openpty()
# a terminal of 100 columns, whatever the one running the tests
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
env = dict(os.environ, TERM="xterm")
env.pop("NO_COLOR", None)
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=slave, env=env)
os.close(slave)

out = []
reader = threading.Thread(target=lambda: out.append(p.stdout.read()))
reader.start()
tty = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the last writer has closed the terminal
        break
    if not chunk:
        break
    tty += chunk
code = p.wait()
reader.join()
os.close(master)

text = tty.decode("utf-8", "backslashreplace").replace("\r\n", "\n")
text = text.replace("\r", "<CR>").replace("\x1b[K", "<EL>").replace("\x1b", "<ESC>")
sys.stdout.write(out[0].decode("utf-8", "backslashreplace"))
sys.stdout.write("--- stderr (terminal) ---\n")
sys.stdout.write(text)
if text and not text.endswith("\n"):
    sys.stdout.write("\n")
sys.stdout.write("exit %d\n" % code)
