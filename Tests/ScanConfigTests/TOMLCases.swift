/// Hand-written TOML documents on the spec's rules; tomli decides which are valid.
enum TOMLCases {
    static let valid = [
        "", "# only a comment\n", "a = 1", "a = 1\r\nb = 2\r\n", "\"a b\" = 1\n'c.d' = 2\n\"\" = 3",
        "a.b.c = 1\na.b.d = 2\na.e = 3", "a . b = 1",
        "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true",
        "[x.y.z.w]\n[x]\n", "[a.b.c]\n[a]\nb.d = 1", "[a]\nb = 1\n[a.c]\nd = 2",
        "[[products]]\nname = \"Hammer\"\n[[products]]\n[[products]]\nname = \"Nail\"",
        "[[fruits]]\nname = \"apple\"\n[fruits.physical]\ncolor = \"red\"\n[[fruits.varieties]]\nname = \"red\"\n[[fruits]]\nname = \"banana\"\n[[fruits.varieties]]\nname = \"plantain\"",
        "points = [ { x = 1, y = 2 }, { x = 7, y = 8 } ]", "a = { b = { c = 1 }, d.e = 2 }",
        "s = \"\\b\\t\\n\\f\\r\\\"\\\\\\u00E9\\U0001F600\"", "s = 'C:\\Users\\nodejs'", "s = '''\nline1\nline2'''",
        "s = \"\"\"\nThe quick \\\n\n   brown fox\"\"\"", "s = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"",
        "s = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"", "s = '''That's still pointless'''''",
        "i = [+99, 42, 0, -17, 1_000, 5_349_221, 0xDEADBEEF, 0xdead_beef, 0o01234567, 0o755, 0b11010110, 9223372036854775807, -9223372036854775808]",
        "f = [+1.0, 3.1415, -0.01, 5e+22, 1e06, -2E-2, 6.626e-34, 224_617.445_991_228, -0.0, +0.0, inf, +inf, -inf, nan, +nan, -nan]",
        "d = [1979-05-27T07:32:00Z, 1979-05-27T00:32:00-07:00, 1979-05-27T00:32:00.999999-07:00, 1979-05-27 07:32:00Z, 1979-05-27T07:32:00, 1979-05-27T00:32:00.999999, 1979-05-27, 07:32:00, 00:32:00.999999]",
        "d = 1979-05-27T00:32:00.123456789+05:30", "leap = 2000-02-29", "a = [\n  1, # one\n  2,\n]",
        "a = [ [1, 2], [\"a\", 'b'], [ {x = 1} ] ]", "a = []\nb = {}", "a=1#c", "a = true\nb = false", "1234 = 5\n-_ = 6",
        "a = \"é ü 日本\"", "[ a . b ]\nc = 1", "[\"a.b\"]\nc = 1", "a = \"\\u0000\"", "t = 1979-05-27T07:32:00z",
    ]

    static let invalid = [
        "[", "[[", "[.a]", "x = [}", "x = [1,}", "x = {a=[}", "[a", "x = \"\\u", "a = ", "= 1", "a = 1 2", "a = 1\na = 2",
        "[a]\n[a]", "[a]\nb = 1\n[a]", "a = {}\n[a]", "a = []\n[[a]]", "[[a]]\n[a]", "a.b = 1\n[a.b]",
        "[fruit]\napple.color = \"red\"\n[fruit.apple]", "[a.b.c]\nz = 1\n[a]\nb.c.y = 1", "a = { b = 1 }\na.c = 2",
        "a = { b = 1, b = 2 }", "a = { b = {}, b.c = 1 }", "a = { b = 1, }", "a = {\nb = 1 }", "a = 01", "a = 1__2", "a = 1_",
        "a = 0x", "a = +0x1", "a = 1.", "a = .5", "a = 1e_5", "a = 9223372036854775808", "a = -9223372036854775809",
        "a = \"\\q\"", "a = \"\\uD800\"", "a = \"tab\u{1}\"", "a = 'a\nb'", "a = \"\"\"a\\   b\"\"\"", "a = \"\"\"\"\"\"\"\"\"",
        "a = 1979-05-27T07:32", "a = 2000-02-30", "a = 1900-02-29", "a = 0000-01-01", "a = 24:00:00", "a = 07:32:60",
        "a = 1979-05-27T07:32:00+24:00", "a = 07:32:00.", "a = 1\rb = 2", "# comment \u{7f}", "a = 1 # \u{1}",
        "a = True", "a = truex", "a = nan1", "a = [1 2]", "a = [,]", "a = [1,,2]", "\u{0}", "a = 1\u{0}", "a.\"\" = 1\na = 2",
        "a = 'lit", "[a]b = 1", "[[a]]]", "[a.]", "[]", "a..b = 1", "a = \"x\"\"", "a =\n1", "\"a\nb\" = 1",
    ]
}
