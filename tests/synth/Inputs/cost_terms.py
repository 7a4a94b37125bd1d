"""The terms of a cost line collc prints, for the synth tests' scripts."""
from fractions import Fraction


def terms(line):
    """'14·α + 7/4·M/β + 7/8·M/γ' -> (14, 7/4, 7/8); a missing term is 0"""
    out = {"α": Fraction(0), "M/β": Fraction(0), "M/γ": Fraction(0)}
    for part in line.split(" + "):
        part = part.strip()
        for unit in out:
            if part.endswith(unit):
                k = part[: -len(unit)].rstrip("·")
                out[unit] = Fraction(1) if k == "" else Fraction(k)
    return out["α"], out["M/β"], out["M/γ"]
