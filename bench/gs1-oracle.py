#!/usr/bin/env python3
"""GS1 element strings and Digital Link URIs with biip's reading of each, for scand's oracle test.

  gs1-oracle.py [--count N] [--seed S]

Prints one JSON object per line:
  {"kind": "valid" | "<fault>", "input": "...", "spec": "valid" | "invalid",
   "biip": {"ok": bool, "elements": [[ai, value], ...], "error": "..."}}

Valid cases are random element strings of AIs from biip's AI table (values made to pass the
checks the GS1 General Specifications give: check digits, dates, times, pieces of a total),
FNC1 (0x1D) after every AI whose length is not predefined, but the last. Each broken case has
one fault of a known kind; `spec` is what the General Specifications say of the input. Digital
Link cases (kind "link...") are URIs; "biip.ok" there means biip read a Digital Link with valid
data. Python's own random numbers, seeded: the same seed gives the same cases.

Needs biip (scripts/setup.sh installs it into /opt/scand-tests/venv).
"""
import argparse
import json
import random
import re
import string
import sys

from biip import ParseError
from biip.gs1_application_identifiers import _GS1_APPLICATION_IDENTIFIERS as AIS
from biip.gs1_digital_link_uris import GS1DigitalLinkURI
from biip.gs1_messages import GS1Message

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from gs1 import check_digit  # noqa: E402  (bench/gs1.py)

GS = "\x1d"
CSET82 = "!\"%&'()*+,-./0123456789:;<=>?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
CSET39 = "#-/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
CSET64 = string.ascii_letters + string.digits + "-_"
PREDEFINED = {"00", "01", "02", "03", "04", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20",
              "31", "32", "33", "34", "35", "36", "41"}


def parts(fmt):
    """biip's format after the AI ('N2+N14', 'N3+N13[+X..17]', 'N4+N6+[-]') as
    (charset, min, max, optional) tuples."""
    rest = fmt.split("+", 1)[1].replace("[+", "+[")
    out = []
    for token in rest.split("+"):
        optional = token.startswith("[")
        token = token.strip("[]")
        if token == "-":
            out.append(("-", 1, 1, optional))
            continue
        numbers = [int(n) for n in re.findall(r"\d+", token[1:])]
        variable = ".." in token
        out.append((token[0], numbers[0] if len(numbers) > 1 else (1 if variable else numbers[0]), numbers[-1], optional))
    return out


def chars(kind, n, rnd):
    alphabet = {"N": string.digits, "X": CSET82, "Y": CSET39, "Z": CSET64, "-": "-"}[kind]
    return "".join(rnd.choice(alphabet) for _ in range(n))


def date(rnd, day00=False, century=False):
    y, m = rnd.randrange(100), rnd.randrange(1, 13)
    days = [31, 29 if y % 4 == 0 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
    d = rnd.randrange(0 if day00 else 1, days + 1)
    return (f"20{y:02}" if century else f"{y:02}") + f"{m:02}{d:02}"


def hhmm(rnd):
    return f"{rnd.randrange(24):02}{rnd.randrange(60):02}"


def with_check(digits):
    return digits + check_digit(digits)


def value(ai, rnd):
    """A value of `ai` that passes the General Specifications' checks."""
    raw = ""
    for kind, lo, hi, optional in parts(AIS[ai].format):
        if optional and rnd.random() < 0.5:
            continue
        raw += chars(kind, rnd.randint(lo, hi), rnd)
    d = raw
    if ai in ("00", "01", "02", "03", "402", "8017", "8018") or ai.startswith("41") and len(ai) == 3:
        return with_check(d[:-1])
    if ai in ("253", "255"):
        return with_check(d[:12]) + d[13:]
    if ai == "8003":
        return "0" + with_check(d[1:13]) + d[14:]
    if ai in ("8006", "8026"):
        total = rnd.randint(1, 99)
        return with_check(d[:13]) + f"{rnd.randint(1, total):02}{total:02}"
    if ai in ("11", "12", "13", "15", "16", "17"):
        return date(rnd, day00=True)
    if ai in ("4326", "7006"):
        return date(rnd)
    if ai == "7007":
        return date(rnd) + (date(rnd) if len(d) > 6 else "")
    if ai == "7011":
        return date(rnd) + (hhmm(rnd) if len(d) > 6 else "")
    if ai in ("7003", "4324", "4325"):
        return date(rnd, day00=ai != "7003") + hhmm(rnd)
    if ai == "8008":
        extra = {8: "", 9: "", 10: f"{rnd.randrange(60):02}", 11: f"{rnd.randrange(60):02}"}.get(len(d), f"{rnd.randrange(60):02}{rnd.randrange(60):02}")
        return date(rnd) + f"{rnd.randrange(24):02}" + extra
    if ai == "7250":
        return date(rnd, century=True)
    if ai == "7251":
        return date(rnd, century=True) + hhmm(rnd)
    if ai in ("4321", "4322", "4323"):
        return rnd.choice("01")
    if ai in ("422", "424", "426"):
        return "276"
    if ai in ("421", "7030", "7031", "7032", "7033", "7034", "7035", "7036", "7037", "7038", "7039"):
        return "276" + d[3:]
    if ai in ("423", "425"):
        return rnd.choice(["276", "276040", "276040528"])
    if ai[:3] in ("391", "393"):
        return "978" + d[3:]
    if ai in ("4307", "4317"):
        return "DE"
    if ai == "4309":
        return f"{rnd.randrange(1800000001):010}{rnd.randrange(3600000001):010}"
    if ai == "8001":
        return f"{rnd.randint(1, 9999):04}{rnd.randint(1, 99999):05}{rnd.randint(1, 999):03}{rnd.choice('019')}{rnd.randrange(10)}"
    if ai == "7040":
        return str(rnd.randrange(10)) + chars("X", 2, rnd) + rnd.choice(string.ascii_uppercase)
    if ai == "7258":
        total = rnd.randint(2, 9)
        return f"{rnd.randint(1, total)}/{total}"
    if ai == "7241":
        return rnd.choice(["01", "02", "10"])
    if ai == "7252":
        return rnd.choice("0129")
    if ai == "8007":
        return "DE89370400440532013000"
    if ai == "8011":
        return str(rnd.randint(1, 9)) + d[1:]
    return d


def biip_message(text):
    try:
        m = GS1Message.parse(text)
    except ParseError as e:
        return {"ok": False, "elements": [], "error": str(e)}
    errors = [x for e in m.element_strings for x in (e.gtin_error, e.gln_error, e.sscc_error) if x]
    return {"ok": not errors, "elements": [[e.ai.ai, e.value] for e in m.element_strings], "error": "; ".join(errors)}


def biip_link(uri):
    try:
        m = GS1DigitalLinkURI.parse(uri).as_gs1_message()
    except ParseError as e:
        return {"ok": False, "elements": [], "error": str(e)}
    errors = [x for e in m.element_strings for x in (e.gtin_error, e.gln_error, e.sscc_error) if x]
    return {"ok": not errors, "elements": [[e.ai.ai, e.value] for e in m.element_strings], "error": "; ".join(errors)}


def join(elements):
    out = ""
    for n, (ai, v) in enumerate(elements):
        out += ai + v
        if n < len(elements) - 1 and ai[:2] not in PREDEFINED:
            out += GS
    return out


def valid_elements(rnd, ais):
    chosen, seen = [], set()
    for _ in range(rnd.randint(1, 5)):
        ai = rnd.choice(ais)
        if ai not in seen:
            seen.add(ai)
            chosen.append((ai, value(ai, rnd)))
    return chosen


def broken(kind, rnd, ais):
    """An element string with one fault of `kind`."""
    head = valid_elements(rnd, ais)[:2]
    if kind == "check-digit":
        ai = rnd.choice(["00", "01", "414", "8017"])
        v = value(ai, rnd)
        return join(head + [(ai, v[:-1] + str((int(v[-1]) + rnd.randint(1, 9)) % 10))])
    if kind == "month":
        return join(head + [(rnd.choice(["11", "15", "17"]), f"{rnd.randrange(100):02}{rnd.randint(13, 99)}01")])
    if kind == "day":
        return join(head + [("17", f"{rnd.choice([21, 22, 23, 25])}0229")])
    if kind == "unknown-ai":
        return join(head) + (GS if head and head[-1][0][:2] not in PREDEFINED else "") + rnd.choice(["2312", "04123456", "3106001250", "7299X", "8099X"])
    if kind == "truncated":
        ai = rnd.choice(["00", "01", "17", "3103", "414"])
        return join(head + [(ai, value(ai, rnd))])[:-rnd.randint(1, 5)]
    if kind == "too-long":
        return join([("10", chars("X", 21, rnd))] + head)
    if kind == "bad-character":
        v = value("10", rnd)[:10]
        return join([("10", v + rnd.choice([" ", "#", "$", "@", "é", "\x7f"]) + v)] + head)
    if kind == "cset39":
        return join(head + [("8010", "ab" + chars("Y", 5, rnd))])
    if kind == "decimal-places":
        return join(head) + (GS if head and head[-1][0][:2] not in PREDEFINED else "") + rnd.choice(["3106", "3159", "3947"]) + chars("N", 6, rnd)
    # The General Specifications refuse these; biip takes them (see its note in the test).
    if kind == "fixed-length-without-fnc1":
        ai = rnd.choice(["8006", "8017", "402", "7003", "4309"])
        return ai + value(ai, rnd) + "10" + chars("N", 3, rnd)
    if kind == "repeated-ai":
        return "10" + "A" + GS + "21X" + GS + "10" + "B"
    if kind == "day-00-not-allowed":
        return join(head + [(rnd.choice(["7006", "4326"]), f"{rnd.randrange(100):02}{rnd.randint(1, 12):02}00")])
    if kind == "piece-of-total":
        return "8006" + with_check(chars("N", 13, rnd)) + rnd.choice(["0302", "0001", "0500"])
    raise ValueError(kind)


BIIP_DIFFERS = ["fixed-length-without-fnc1", "repeated-ai", "day-00-not-allowed", "piece-of-total"]
FAULTS = ["check-digit", "month", "day", "unknown-ai", "truncated", "too-long", "bad-character", "cset39", "decimal-places"] + BIIP_DIFFERS


def link(rnd, kind):
    gtin = value("01", rnd)
    host = rnd.choice(["https://id.gs1.org", "https://example.com/shop", "http://brand.example/p/q"])
    lot, serial = chars("N", rnd.randint(1, 8), rnd), "S" + chars("N", 4, rnd)
    expiry = date(rnd, day00=True)
    if kind == "link":
        path = rnd.choice([f"/01/{gtin}", f"/01/{gtin}/10/{lot}", f"/01/{gtin}/10/{lot}/21/{serial}", f"/01/{with_check(chars('N', 12, rnd))}/21/{serial}",
                           f"/00/{value('00', rnd)}", f"/414/{value('414', rnd)}/254/{lot}"])
        return f"{host}{path}" + rnd.choice(["", f"?17={expiry}", f"?17={expiry}&3103={chars('N', 6, rnd)}", "?linkType=all"])
    if kind == "link-check-digit":
        return f"{host}/01/{gtin[:-1]}{(int(gtin[-1]) + 1) % 10}/10/{lot}"
    if kind == "link-order":
        return f"{host}/01/{gtin}/21/{serial}/10/{lot}"
    if kind == "link-no-key":
        return f"{host}/10/{lot}?17={expiry}"
    if kind == "link-bad-attribute":
        return f"{host}/01/{gtin}?17={rnd.randrange(100):02}{rnd.randint(13, 99)}01"
    raise ValueError(kind)


LINKS = ["link", "link-check-digit", "link-order", "link-no-key", "link-bad-attribute"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=400, help="element strings (and a quarter as many links)")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    ais = sorted(AIS)
    for n in range(args.count):
        if n % 2 == 0:
            text, kind = join(valid_elements(rnd, ais)), "valid"
        else:
            kind = FAULTS[(n // 2) % len(FAULTS)]
            text = broken(kind, rnd, ais)
        print(json.dumps({"kind": kind, "input": text, "spec": "valid" if kind == "valid" else "invalid", "biip": biip_message(text)}))
    for n in range(args.count // 4):
        kind = "link" if n % 2 == 0 else LINKS[1 + (n // 2) % (len(LINKS) - 1)]
        uri = link(rnd, kind)
        print(json.dumps({"kind": kind, "input": uri, "spec": "valid" if kind == "link" else "invalid", "biip": biip_link(uri)}))


if __name__ == "__main__":
    main()
