#!/usr/bin/env python3
"""Mutation test for the collc front end.

Takes every dsl-examples/*.coll (or, while there are none, the .coll files
of the test suite), derives a deterministic set of mutants (bit flips, token
deletions / duplications / swaps, truncations, splices of two files, random
bytes, keyword and punctuation insertions, NUL and non-UTF-8 bytes) and runs
`collc check` on each: text-format mutants 16 per process (start-up
dominates in sanitizer builds), then alone those that parse; JSON and SARIF
ones alone on standard input. Every other mutant that checks cleanly also
goes through `collc expand` and `collc verify` at a small N (--deeper).

A mutant fails the test when collc
  - exits with a status other than 0 or 1 (a crash or abort shows as < 0),
  - prints "AddressSanitizer", "LeakSanitizer", "runtime error" (UBSan) or
    "internal compiler error",
  - hangs (timeout), or
  - writes invalid JSON Lines / SARIF when those formats are asked for.
Failing mutants are saved (--save DIR) so that they can be replayed with
`collc check DIR/mutant-K.coll`.

The mutant set depends only on --seed and the inputs; --budget bounds the
wall time (mutants not run in time are reported, not failed)."""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

MARKERS = ("AddressSanitizer", "LeakSanitizer", "runtime error", "internal compiler error",
           "ThreadSanitizer")
TOKEN_RE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]+)?|\.\.|->|<->|"
                      rb"<<|>>|<=|>=|==|!=|&&|\|\||//[^\n]*|/\*|\*/|\"(?:\\.|[^\"\\\n])*\"|\s+|.",
                      re.S)
INSERTS = [b"algorithm", b"topology", b"step", b"for", b"in", b"ranks", b"if", b"else", b"let",
           b"param", b"require", b"scratch", b"split", b"copy", b"reduce", b"nodes", b"link",
           b"N", b"root", b"{", b"}", b"[", b"]", b"(", b")", b";", b",", b":", b"=", b"->",
           b"<->", b"..", b"%", b"/", b"<<", b">>", b"-", b"9223372036854775807",
           b"9223372036854775808", b"0x7fffffffffffffff", b"-1", b"0", b"1 << 62", b"\"",
           b"/*", b"*/", b"//", b"\"unterminated", b"\x00", b"\xff", b"\xc3\xa9", b"\xe2\x82",
           b"log2(", b"ceil_log2(0)", b"is_pow2(", b"min(", b"max(1,", b"in[r][0 .. N]",
           b"out[r][", b"64GB/s", b"2us", b"alpha = ", b"1e999", b"\t", b"\r\n", b"\n" * 3]


def tokens(data):
    return TOKEN_RE.findall(data)


def mutate(rng, data, others):
    """One mutant of `data`; `others` are all inputs (for splices)."""
    ops = ["flip", "delete_tok", "dup_tok", "swap_tok", "truncate", "splice", "random_bytes",
           "insert", "insert", "delete_range", "dup_range", "replace_tok"]
    out = data
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        op = rng.choice(ops)
        if not out:
            out = rng.choice(INSERTS)
            continue
        toks = tokens(out)
        if op == "flip":
            b = bytearray(out)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(b))
                b[i] ^= 1 << rng.randrange(8)
            out = bytes(b)
        elif op == "delete_tok" and toks:
            i = rng.randrange(len(toks))
            out = b"".join(toks[:i] + toks[i + 1:])
        elif op == "dup_tok" and toks:
            i = rng.randrange(len(toks))
            out = b"".join(toks[:i + 1] + [toks[i]] + toks[i + 1:])
        elif op == "swap_tok" and len(toks) > 1:
            i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
            out = b"".join(toks)
        elif op == "replace_tok" and toks:
            i = rng.randrange(len(toks))
            toks[i] = rng.choice(INSERTS)
            out = b"".join(toks)
        elif op == "truncate":
            out = out[:rng.randrange(len(out) + 1)]
        elif op == "splice":
            other = rng.choice(others)
            out = out[:rng.randrange(len(out) + 1)] + other[rng.randrange(len(other) + 1):]
        elif op == "random_bytes":
            i = rng.randrange(len(out) + 1)
            junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            out = out[:i] + junk + out[i:]
        elif op == "insert":
            i = rng.randrange(len(toks) + 1)
            out = b"".join(toks[:i] + [b" ", rng.choice(INSERTS), b" "] + toks[i:])
        elif op == "delete_range":
            i = rng.randrange(len(out))
            out = out[:i] + out[i + rng.randint(1, 64):]
        elif op == "dup_range":
            i = rng.randrange(len(out))
            j = min(len(out), i + rng.randint(1, 200))
            out = out[:j] + out[i:j] + out[j:]
    return out


def run_one(collc, fmt, data, timeout, leaks, deeper):
    cmd = [collc, "check", "-ferror-limit=0"]
    env = None
    if not leaks:
        # LeakSanitizer's exit-time scan costs more than the compilation;
        # leaks are checked on a share of the mutants only (no effect on a
        # build without sanitizers).
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    if fmt != "text":
        cmd.append("--diagnostics-format=" + fmt)
    cmd.append("-")
    try:
        p = subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timeout after %ss" % timeout
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in (0, 1):
        return "exit status %d\n%s" % (p.returncode, err[-3000:])
    for m in MARKERS:
        if m in err:
            return "stderr contains %r\n%s" % (m, err[-3000:])
    if fmt == "json":
        for line in err.splitlines():
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict) or "severity" not in obj:
                    return "JSON line without severity: " + line[:300]
            except ValueError:
                return "invalid JSON line: " + line[:300]
    elif fmt == "sarif":
        try:
            log = json.loads(err)
            if log.get("version") != "2.1.0" or len(log["runs"]) != 1:
                return "bad SARIF header"
        except (ValueError, KeyError, TypeError) as e:
            return "invalid SARIF: %s" % e
    if p.returncode == 1 and fmt == "text" and "error" not in err:
        return "exit status 1 without an error message"
    if p.returncode == 0 and fmt == "text" and deeper:
        # A mutant that checks cleanly goes on through instantiate and verify
        # at small N (bounded schedules), where the later phases can crash.
        for sub in deeper:
            argv = [collc] + sub + ["--max-transfers=20000", "-"]
            try:
                q = subprocess.run(argv, input=data, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, timeout=timeout, env=env)
            except subprocess.TimeoutExpired:
                return "%s: timeout after %ss" % (" ".join(sub), timeout)
            qerr = q.stderr.decode("utf-8", "replace")
            # 3: a resource limit (too-large), documented in docs/cli.md
            if q.returncode not in (0, 1, 3):
                return "%s: exit status %d\n%s" % (" ".join(sub), q.returncode, qerr[-3000:])
            for m in MARKERS:
                if m in qerr:
                    return "%s: stderr contains %r\n%s" % (" ".join(sub), m, qerr[-3000:])
    return None


# Codes of the lexer and parser: a file with one of these never reached sema.
PARSE_CODES = {"syntax", "stray-char", "invalid-utf8", "nul-byte", "unterminated-comment",
               "unterminated-string", "bad-escape", "literal-too-large", "bad-unit",
               "nesting-too-deep"}


def run_batch(args, batch, tmpdir, leaks):
    """One `collc check --diagnostics-format=json` over a batch of mutants
    (process start-up dominates in sanitizer builds). Mutants that parse
    cleanly are then checked one by one (sema needs a program without syntax
    errors, and expand/verify follow); a failing batch is bisected by running
    each mutant alone. Returns [(mutant, why)]."""
    paths = []
    for k, _, data in batch:
        path = os.path.join(tmpdir, "m%d.coll" % k)
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
    env = dict(os.environ)
    if not leaks:
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    cmd = [args.collc, "check", "-ferror-limit=0", "--diagnostics-format=json"] + paths
    bad = None
    parse_failed = set()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=args.timeout * 2, env=env)
        err = p.stderr.decode("utf-8", "replace")
        if p.returncode not in (0, 1):
            bad = "exit status %d\n%s" % (p.returncode, err[-3000:])
        for m in MARKERS:
            if not bad and m in err:
                bad = "stderr contains %r\n%s" % (m, err[-3000:])
        if not bad:
            for line in err.splitlines():
                try:
                    obj = json.loads(line)
                except ValueError:
                    bad = "invalid JSON line: " + line[:300]
                    break
                if not isinstance(obj, dict) or "severity" not in obj:
                    bad = "JSON line without severity: " + line[:300]
                    break
                if obj.get("code") in PARSE_CODES:
                    parse_failed.add(obj.get("file"))
    except subprocess.TimeoutExpired:
        bad = "timeout after %ss" % (args.timeout * 2)
    failures = []
    for (k, fmt, data), path in zip(batch, paths):
        if bad or path not in parse_failed:
            why = run_one(args.collc, "text", data, args.timeout, False,
                          deeper_for(args, k) if not bad else [])
            if why:
                failures.append(((k, fmt, data), why))
        os.unlink(path)
    if bad and not failures:
        failures.append((batch[0], "batch of %d mutants (%d..%d): %s"
                         % (len(batch), batch[0][0], batch[-1][0], bad)))
    return failures


def deeper_for(args, k):
    # Later phases on every other mutant: breadth first when the budget is
    # tight (sanitizer builds start slowly).
    if k % 2:
        return []
    return [[sub, "-N", str(k % 7 + 1)] for sub in args.deeper]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collc", required=True)
    ap.add_argument("--examples", required=True, help="dsl-examples directory")
    ap.add_argument("--fallback", help="directory searched recursively for .coll files "
                    "when there are no examples")
    ap.add_argument("--count", type=int, default=int(os.environ.get("COLLC_FUZZ_MUTANTS", 3000)))
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--budget", type=float,
                    default=float(os.environ.get("COLLC_FUZZ_SECONDS", 50)),
                    help="wall-clock seconds for the whole run")
    ap.add_argument("--timeout", type=float, default=20, help="seconds per collc run")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--leak-every", type=int, default=10,
                    help="run LeakSanitizer on every K-th mutant (ASan builds)")
    ap.add_argument("--save", help="directory for failing mutants")
    ap.add_argument("--batch", type=int, default=16,
                    help="text-format mutants checked per collc process (1 = one each)")
    ap.add_argument("--deeper", default="expand,verify",
                    help="subcommands run (with -N 1..7) on the even-numbered mutants that "
                         "check cleanly; "
                         "those this collc does not have are left out")
    args = ap.parse_args()

    files = sorted(glob.glob(os.path.join(args.examples, "*.coll")))
    if not files and args.fallback:
        files = sorted(glob.glob(os.path.join(args.fallback, "**", "*.coll"), recursive=True))
    inputs = [open(f, "rb").read() for f in files]
    if not inputs:
        # Nothing written yet: still exercise the lexer on a tiny seed.
        inputs = [b"algorithm a : allgather {\n  step { for r in ranks { copy in[r][0] -> "
                  b"out[r][r]; } }\n}\n"]
    wanted = [c for c in args.deeper.split(",") if c]
    args.deeper = [c for c in wanted
                   if subprocess.run([args.collc, "help", c], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL).returncode == 0]
    rng = random.Random(args.seed)
    # A job is a list of mutants: a batch of text ones, or a single JSON or
    # SARIF one (those check the sinks on garbage input).
    jobs = []
    batch = []
    for k in range(args.count):
        src = inputs[k % len(inputs)]
        fmt = {2: "json", 6: "sarif"}.get(k % 8, "text")
        mutant = (k, fmt, mutate(rng, src, inputs))
        if fmt != "text" or args.batch <= 1:
            jobs.append([mutant])
            continue
        batch.append(mutant)
        if len(batch) == args.batch:
            jobs.append(batch)
            batch = []
    if batch:
        jobs.append(batch)
    # The unmodified inputs must be accepted or rejected cleanly too.
    for i, src in enumerate(inputs):
        jobs.append([(args.count + i, "text", src)])
    total = sum(len(j) for j in jobs)
    tmpdir = tempfile.mkdtemp(prefix="collc-fuzz-")

    start = time.monotonic()
    failures = []
    done = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = {}
        it = iter(jobs)
        def submit():
            for job in it:
                if time.monotonic() - start > args.budget:
                    return False
                k = job[0][0]
                leaks = (k // max(1, len(job))) % args.leak_every == 0
                if len(job) > 1:
                    fut = pool.submit(run_batch, args, job, tmpdir, leaks)
                else:
                    fut = pool.submit(run_one, args.collc, job[0][1], job[0][2], args.timeout,
                                      leaks, deeper_for(args, k))
                pending[fut] = job
                return True
            return False
        for _ in range(args.jobs * 2):
            submit()
        while pending:
            finished, _ = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in finished:
                job = pending.pop(fut)
                done += len(job)
                result = fut.result()
                if len(job) > 1:
                    failures.extend(result)
                elif result:
                    failures.append((job[0], result))
                submit()
    skipped = total - done
    shutil.rmtree(tmpdir, ignore_errors=True)

    if failures and args.save:
        os.makedirs(args.save, exist_ok=True)
    for (k, fmt, data), why in failures[:20]:
        where = ""
        if args.save:
            where = os.path.join(args.save, "mutant-%d.coll" % k)
            with open(where, "wb") as f:
                f.write(data)
        print("FAIL mutant %d (%s) %s: %s" % (k, fmt, where, why))
    print("mutation test: %d inputs, %d mutants run, %d not run (budget %.0fs), %d failures"
          % (len(inputs), done, skipped, args.budget, len(failures)))
    print("(check on every mutant, %d per process for text; alone when it parses; "
          "%s on every other one that checks cleanly)"
          % (args.batch, ", ".join(args.deeper) or "nothing more"))
    if done == 0:
        print("error: no mutant ran")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
