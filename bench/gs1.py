"""GS1 helpers shared by the bench scripts: check digits and UPC-E expansion."""


def check_digit(digits):
    """The GS1 check digit of `digits` (EAN/UPC/ITF-14)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


def upce_body(upce):
    """The UPC-A body (11 digits, no check digit) of a UPC-E's number system and six digits."""
    ns, d = upce[0], upce[1:7]
    last = d[5]
    if last in "012":
        body = d[0:2] + last + "0000" + d[2:5]
    elif last == "3":
        body = d[0:3] + "00000" + d[3:5]
    elif last == "4":
        body = d[0:4] + "00000" + d[4]
    else:
        body = d[0:5] + "0000" + last
    return ns + body


def upce_to_upca(short):
    """UPC-E (8 digits with number system and check) to its UPC-A expansion, or None."""
    if len(short) != 8 or not short.isdigit():
        return None
    return upce_body(short[:7]) + short[7]
