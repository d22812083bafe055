#!/usr/bin/python3
"""The reference side of scand's TOML differential test: parses every file named on standard
input (one path a line) with tomli, Debian's python3-tomli, and prints one line per file:
the document in a canonical form (the same one ScanConfigTests writes for scand's parser),
ERROR when tomli rejects it, or BIGINT when it holds an integer outside 64 bits."""
import datetime, struct, sys
try:
    import tomli
except ImportError:  # Python 3.11's tomllib is tomli 2.0.1
    import tomllib as tomli

class BigInt(Exception):
    pass

def h(s):
    return s.encode("utf-8", "surrogatepass").hex()

def canon(v):
    if isinstance(v, bool):
        return "b:" + ("1" if v else "0")
    if isinstance(v, int):
        if not -2**63 <= v < 2**63:
            raise BigInt()
        return "i:%d" % v
    if isinstance(v, float):
        if v != v:
            return "f:nan"
        return "f:%d" % struct.unpack("<q", struct.pack("<d", v))[0]
    if isinstance(v, str):
        return "s:" + h(v)
    if isinstance(v, datetime.datetime):
        base = "%d-%d-%d-%d-%d-%d-%d" % (v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond)
        if v.tzinfo is None:
            return "ldt:" + base
        return "odt:%s@%d" % (base, int(v.utcoffset().total_seconds()) // 60)
    if isinstance(v, datetime.date):
        return "ld:%d-%d-%d" % (v.year, v.month, v.day)
    if isinstance(v, datetime.time):
        return "lt:%d-%d-%d-%d" % (v.hour, v.minute, v.second, v.microsecond)
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(h(k) + "=" + canon(v[k]) for k in sorted(v, key=h)) + "}"
    raise TypeError(type(v))

for path in sys.stdin.read().splitlines():
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
        print(canon(tomli.loads(text)))
    except BigInt:
        print("BIGINT")
    except (tomli.TOMLDecodeError, UnicodeDecodeError, ValueError):
        print("ERROR")
    except RecursionError:
        print("DEEP")
