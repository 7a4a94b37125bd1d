"""The structure of a `collc compare --plot` SVG, one line per part: each
panel's collective and title, each series' algorithm, its number of points,
whether its time rises with the size (every point above and right of the
one before), its legend, each crossover's title and whether it lies inside
the panel's frame. The file must parse as XML. usage: plot-structure.py SVG"""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
print("svg", root.tag == NS + "svg")
for g in root.iter(NS + "g"):
    if g.get("class") != "panel":
        continue
    print("panel", g.get("data-collective"))
    frame = None
    for el in g:
        cls = el.get("class")
        if cls == "title":
            print("  title", el.text)
        elif cls == "frame":
            frame = [float(el.get(k)) for k in ("x", "y", "width", "height")]
        elif cls == "series":
            pts = [tuple(map(float, p.split(","))) for p in el.get("points").split()]
            rising = all(b[0] > a[0] and b[1] <= a[1] for a, b in zip(pts, pts[1:]))
            print("  series", el.get("data-algorithm"), "points", len(pts), "rising", rising)
        elif cls == "legend":
            print("  legend", el.text)
        elif cls == "crossover":
            x, y = float(el.get("cx")), float(el.get("cy"))
            inside = frame[0] < x < frame[0] + frame[2] and frame[1] < y < frame[1] + frame[3]
            print("  crossover", el.find(NS + "title").text, "inside", inside)
