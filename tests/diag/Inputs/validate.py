"""Structural validation of collc's machine-readable diagnostics.

usage: validate.py json|sarif FILE   (FILE '-' = stdin)

json : JSON Lines; every line an object with the fields of diag.h.
sarif: one SARIF 2.1.0 log (the subset collc writes, checked strictly).
Prints a one-line summary ("json: 3 diagnostics, 2 errors, 1 warnings") and
exits 1 with the reason on the first violation."""
import json
import sys


def fail(msg):
    print("INVALID: " + msg)
    sys.exit(1)


def need(obj, key, types, where):
    if key not in obj:
        fail("%s: missing '%s'" % (where, key))
    if not isinstance(obj[key], types):
        fail("%s: '%s' has type %s" % (where, key, type(obj[key]).__name__))
    return obj[key]


def pos_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def check_location(o, where):
    f = o.get("file", "MISSING")
    if f == "MISSING":
        fail(where + ": missing 'file'")
    if f is None:
        for k in ("line", "column", "end"):
            if o.get(k, 0) is not None:
                fail(where + ": file-less location with non-null '%s'" % k)
        return
    if not isinstance(f, str) or not f:
        fail(where + ": bad 'file'")
    line = need(o, "line", int, where)
    col = need(o, "column", int, where)
    end = need(o, "end", dict, where)
    el = need(end, "line", int, where + ".end")
    ec = need(end, "column", int, where + ".end")
    if not all(pos_int(v) for v in (line, col, el, ec)):
        fail(where + ": positions must be integers >= 1")
    if (el, ec) < (line, col):
        fail(where + ": end before start")


def check_json(text):
    n = errors = warnings = 0
    for i, line in enumerate(text.splitlines(), 1):
        where = "line %d" % i
        try:
            o = json.loads(line)
        except ValueError as e:
            fail("%s: not JSON: %s" % (where, e))
        if not isinstance(o, dict):
            fail(where + ": not an object")
        check_location(o, where)
        sev = need(o, "severity", str, where)
        if sev not in ("error", "warning"):
            fail(where + ": bad severity " + sev)
        code = need(o, "code", str, where)
        if not code:
            fail(where + ": empty code")
        need(o, "message", str, where)
        notes = need(o, "notes", list, where)
        for k, nt in enumerate(notes):
            w = "%s.notes[%d]" % (where, k)
            if not isinstance(nt, dict):
                fail(w + ": not an object")
            check_location(nt, w)
            need(nt, "message", str, w)
            if "fixit" in nt:
                need(nt, "fixit", str, w)
                if nt["file"] is None:
                    fail(w + ": a fix-it without a location")
        n += 1
        errors += sev == "error"
        warnings += sev == "warning"
    print("json: %d diagnostics, %d errors, %d warnings" % (n, errors, warnings))


def check_region(r, where):
    for k in ("startLine", "startColumn", "endLine", "endColumn"):
        if not pos_int(r.get(k)):
            fail("%s: region.%s must be an integer >= 1" % (where, k))
    if (r["endLine"], r["endColumn"]) < (r["startLine"], r["startColumn"]):
        fail(where + ": region ends before it starts")


def check_physical(p, where):
    al = need(p, "artifactLocation", dict, where)
    uri = need(al, "uri", str, where + ".artifactLocation")
    if not uri or " " in uri:
        fail(where + ": bad uri %r" % uri)
    check_region(need(p, "region", dict, where), where + ".region")


def check_fix(fix, where):
    need(need(fix, "description", dict, where), "text", str, where + ".description")
    changes = need(fix, "artifactChanges", list, where)
    if not changes:
        fail(where + ": no artifactChanges")
    for k, ch in enumerate(changes):
        w = "%s.artifactChanges[%d]" % (where, k)
        uri = need(need(ch, "artifactLocation", dict, w), "uri", str, w + ".artifactLocation")
        if not uri or " " in uri:
            fail(w + ": bad uri %r" % uri)
        reps = need(ch, "replacements", list, w)
        if not reps:
            fail(w + ": no replacements")
        for j, rep in enumerate(reps):
            ww = "%s.replacements[%d]" % (w, j)
            check_region(need(rep, "deletedRegion", dict, ww), ww + ".deletedRegion")
            need(need(rep, "insertedContent", dict, ww), "text", str, ww + ".insertedContent")


def check_sarif(text):
    try:
        log = json.loads(text)
    except ValueError as e:
        fail("not JSON: %s" % e)
    if log.get("version") != "2.1.0":
        fail("version must be 2.1.0")
    if "$schema" in log and "sarif" not in log["$schema"]:
        fail("bad $schema")
    runs = need(log, "runs", list, "log")
    if len(runs) != 1:
        fail("expected exactly one run, got %d" % len(runs))
    run = runs[0]
    drv = need(need(run, "tool", dict, "run"), "driver", dict, "run.tool")
    if drv.get("name") != "collc":
        fail("tool.driver.name must be collc")
    need(drv, "version", str, "driver")
    rules = need(drv, "rules", list, "driver")
    ids = []
    for k, r in enumerate(rules):
        ids.append(need(r, "id", str, "rules[%d]" % k))
    if len(set(ids)) != len(ids):
        fail("duplicate rule ids")
    results = need(run, "results", list, "run")
    errors = warnings = 0
    for i, r in enumerate(results):
        w = "results[%d]" % i
        rid = need(r, "ruleId", str, w)
        if rid not in ids:
            fail(w + ": ruleId %s not among the rules" % rid)
        if "ruleIndex" in r and ids[r["ruleIndex"]] != rid:
            fail(w + ": ruleIndex does not match ruleId")
        level = need(r, "level", str, w)
        if level not in ("error", "warning", "note", "none"):
            fail(w + ": bad level")
        need(need(r, "message", dict, w), "text", str, w + ".message")
        for k, loc in enumerate(r.get("locations", [])):
            check_physical(need(loc, "physicalLocation", dict, w), "%s.locations[%d]" % (w, k))
        for k, rel in enumerate(r.get("relatedLocations", [])):
            ww = "%s.relatedLocations[%d]" % (w, k)
            if "physicalLocation" in rel:
                check_physical(rel["physicalLocation"], ww)
            need(need(rel, "message", dict, ww), "text", str, ww)
        for k, fix in enumerate(r.get("fixes", [])):
            check_fix(fix, "%s.fixes[%d]" % (w, k))
        errors += level == "error"
        warnings += level == "warning"
    print("sarif: %d results, %d errors, %d warnings, %d rules"
          % (len(results), errors, warnings, len(rules)))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("json", "sarif"):
        print(__doc__)
        sys.exit(2)
    data = sys.stdin.buffer.read() if sys.argv[2] == "-" else open(sys.argv[2], "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("not UTF-8: %s" % e)
    (check_json if sys.argv[1] == "json" else check_sarif)(text)


main()
