"""vcounts_examples.py COLLC EXAMPLES PMPI_VBLOCKS_TEST

For every example algorithm of the five v-collectives, at N = 4 and 3,
checks that three verdicts on blocks of different sizes agree:
  - the runtime's, as tests/mpi/pmpi_vblocks_test.sh lists it for
    libcollmpi.so (per block, padded, or not applicable at that N);
  - the record `collc compile` makes in the object (the rank program's
    "per-block counts" or "blocks padded: WHY");
  - `collc verify --vcounts zeros` (0, 1, 2, 0: zeros and uneven blocks):
    verified, or FAILED with a vcount-block error giving the same WHY.
Every example of those collectives must be in that list. Prints one line
per algorithm and N, "ALG N=4: per" / "pad (WHY)" / "na", "DISAGREE ..."
for any mismatch (FileCheck forbids it), then the count that agree."""
import glob
import re
import subprocess
import sys

collc, examples, listing = sys.argv[1:4]
cases = re.findall(r"^(?:cases=\")?([a-z_]+):([a-z0-9_]+):(per|pad|na):(per|pad|na)\"?$",
                   open(listing).read(), re.M)
if len(cases) < 20:
    sys.exit("vcounts_examples: cannot read the cases of " + listing)


def run(*args):
    p = subprocess.run([collc, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def record(path, n):
    """The compile-time record: ('per', None), ('pad', why) or ('na', None)."""
    rc, out, err = run("compile", "--emit=rankir", "-N", str(n), path, "-o", "-")
    if rc != 0:
        return ("na", None) if "nothing-verified" in err else ("error", err.strip())
    head = out.splitlines()[0]
    if head.endswith(", per-block counts)"):
        return ("per", None)
    m = re.search(r", blocks padded: (.*)\)$", head)
    return ("pad", m.group(1)) if m else ("error", head)


def proof(path, n):
    """verify --vcounts zeros: ('per', None), ('pad', why) or ('na', None)."""
    rc, out, err = run("verify", "--quick", "--vcounts", "zeros", "-N", str(n), path)
    if rc == 0 and ": verified for N = %d" % n in out:
        return ("per", None)
    if "nothing verified" in out:
        return ("na", None)
    m = re.search(r"with --vcounts [0-9,]+: (.*) \[vcount-block\]$", err, re.M)
    if rc == 1 and m:
        return ("pad", m.group(1))
    return ("error", (out + err).strip())


# every example of a v-collective is among the cases
vcolls = {"allgather", "gather", "scatter", "alltoall", "reduce_scatter"}
listed = {alg for _, alg, _, _ in cases}
for path in sorted(glob.glob(examples + "/*.coll")):
    for alg, coll in re.findall(r"^algorithm ([a-z0-9_]+) *: *([a-z_]+)", open(path).read(), re.M):
        if coll in vcolls and alg not in listed:
            print("DISAGREE %s: an example of %s the runtime's list does not give" % (alg, coll))

verdicts = 0
for coll, alg, v4, v3 in cases:
    path = "%s/%s.coll" % (examples, alg)
    for n, want in ((4, v4), (3, v3)):
        rec, why_rec = record(path, n)
        ver, why_ver = proof(path, n)
        # the record names the first failing N and step; verify the step's
        # variables: the reason before them is the one fact
        same_why = why_rec is None or why_ver.startswith(why_rec.split(" (N = ")[0] + " (")
        if rec != want or ver != want or not same_why:
            print("DISAGREE %s N=%d: runtime %s, compile %s %s, verify %s %s"
                  % (alg, n, want, rec, why_rec, ver, why_ver))
        else:
            print("%s N=%d: %s" % (alg, n, want if want != "pad" else "pad (%s)" % why_rec))
            verdicts += 1
print("%d algorithms, %d verdicts agree" % (len(cases), verdicts))
