"""Parses an SVG written by `collc draw` (must be well-formed XML) and prints
its structure: panels, their titles, rank rows and arrows per panel."""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
path = sys.argv[1]
root = ET.parse(path).getroot()
assert root.tag == NS + "svg", root.tag
print("root svg")
print("title", root.find(NS + "title").text)
int(root.get("width")), int(root.get("height"))
panels = [g for g in root.iter(NS + "g") if (g.get("id") or "").startswith("panel")]
print("panels", len(panels))
for g in panels:
    texts = [t.text or "" for t in g.findall(NS + "text")]
    head = texts[0]
    extra = ""
    if len(texts) > 1 and not texts[1] in ("in", "out") and head != "initial":
        extra = " " + texts[1]
    print(g.get("id"), head + extra)
rows = [t.text for t in panels[0].findall(NS + "text") if (t.text or "").startswith("r")]
print("rows", " ".join(rows))
print("arrows", " ".join(str(len(g.findall(NS + "path"))) for g in panels))
top = [t.text for t in root.findall(NS + "text")]
if len(top) > 1 and top[1].startswith("T ="):
    print("subtitle", top[1])
