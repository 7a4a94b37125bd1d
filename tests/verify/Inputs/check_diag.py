#!/usr/bin/env python3
"""Structural check of collc's machine-readable diagnostics, for the verify
tests: `check_diag.py json FILE` (JSON Lines) or `check_diag.py sarif FILE`
(one SARIF 2.1.0 log). Fails (exit 1, message on stderr) on a missing or
mistyped field; otherwise prints one normalised line per diagnostic and per
note, so that FileCheck can check their content:
    error postcondition 39:26-39:69 out[r1][c0] is wrong ...
    note 39:26-39:69 written here ...
"""
import json
import sys


def need(obj, key, types, where):
    if not isinstance(obj, dict) or key not in obj:
        sys.exit("%s: missing '%s'" % (where, key))
    if not isinstance(obj[key], types):
        sys.exit("%s: '%s' has type %s" % (where, key, type(obj[key]).__name__))
    return obj[key]


def pos(d, where):
    if d.get("file") is None:
        for k in ("line", "column", "end"):
            if d.get(k) is not None:
                sys.exit("%s: '%s' without 'file'" % (where, k))
        return "-"
    need(d, "file", str, where)
    line = need(d, "line", int, where)
    col = need(d, "column", int, where)
    end = need(d, "end", dict, where)
    el = need(end, "line", int, where + ".end")
    ec = need(end, "column", int, where + ".end")
    if line < 1 or col < 1 or (el, ec) < (line, col):
        sys.exit("%s: bad range" % where)
    return "%d:%d-%d:%d" % (line, col, el, ec)


def check_json(path):
    with open(path) as f:
        lines = [l for l in f.read().split("\n") if l]
    for i, l in enumerate(lines, 1):
        where = "%s:%d" % (path, i)
        d = json.loads(l)
        sev = need(d, "severity", str, where)
        if sev not in ("error", "warning"):
            sys.exit("%s: bad severity %r" % (where, sev))
        code = need(d, "code", str, where)
        msg = need(d, "message", str, where)
        print(sev, code, pos(d, where), msg)
        for j, n in enumerate(need(d, "notes", list, where)):
            nw = "%s.notes[%d]" % (where, j)
            print("note", pos(n, nw), need(n, "message", str, nw))


def region(loc, where):
    phys = need(loc, "physicalLocation", dict, where)
    need(need(phys, "artifactLocation", dict, where), "uri", str, where)
    r = need(phys, "region", dict, where)
    sl = need(r, "startLine", int, where)
    sc = need(r, "startColumn", int, where)
    el = need(r, "endLine", int, where)
    ec = need(r, "endColumn", int, where)
    return "%d:%d-%d:%d" % (sl, sc, el, ec)


def check_sarif(path):
    with open(path) as f:
        doc = json.load(f)
    if need(doc, "version", str, "log") != "2.1.0":
        sys.exit("log: version is not 2.1.0")
    need(doc, "$schema", str, "log")
    runs = need(doc, "runs", list, "log")
    if len(runs) != 1:
        sys.exit("log: expected one run")
    run = runs[0]
    drv = need(need(run, "tool", dict, "run"), "driver", dict, "run.tool")
    need(drv, "name", str, "driver")
    rules = [need(r, "id", str, "rule") for r in need(drv, "rules", list, "driver")]
    for i, res in enumerate(need(run, "results", list, "run")):
        where = "results[%d]" % i
        rid = need(res, "ruleId", str, where)
        if rid not in rules:
            sys.exit("%s: ruleId %r not among the rules" % (where, rid))
        if "ruleIndex" in res and rules[res["ruleIndex"]] != rid:
            sys.exit("%s: ruleIndex does not match ruleId" % where)
        level = need(res, "level", str, where)
        if level not in ("error", "warning", "note"):
            sys.exit("%s: bad level" % where)
        text = need(need(res, "message", dict, where), "text", str, where)
        locs = need(res, "locations", list, where)
        print(level, rid, region(locs[0], where) if locs else "-", text)
        for j, rel in enumerate(res.get("relatedLocations", [])):
            rw = "%s.relatedLocations[%d]" % (where, j)
            txt = need(need(rel, "message", dict, rw), "text", str, rw)
            print("note", region(rel, rw) if "physicalLocation" in rel else "-", txt)


if __name__ == "__main__":
    {"json": check_json, "sarif": check_sarif}[sys.argv[1]](sys.argv[2])
