/// The AI table: every Application Identifier of the GS1 General Specifications (release 24,
/// section 3.2, and the GS1 Barcode Syntax Dictionary that restates it) with its data's parts
/// and checks, the AIs that need no FNC1 after them, and the Digital Link primary keys.
extension GS1 {
    /// Characters an AI's data may hold.
    struct Charset: Sendable {
        let name: String
        let allowed: [Bool]

        init(_ name: String, _ characters: String) {
            self.name = name
            var allowed = [Bool](repeating: false, count: 128)
            for b in characters.utf8 { allowed[Int(b)] = true }
            self.allowed = allowed
        }

        func contains(_ b: UInt8) -> Bool { b < 128 && allowed[Int(b)] }

        static let numeric = Charset("digits only", "0123456789")
        /// GS1 AI encodable character set 82: the invariant ISO 646 characters.
        static let cset82 = Charset("GS1's 82 characters, CSET 82",
                                    "!\"%&'()*+,-./0123456789:;<=>?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
        /// GS1 AI encodable character set 39 (AI 8010).
        static let cset39 = Charset("GS1's 39 characters, CSET 39: # - / 0-9 A-Z", "#-/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        /// GS1 AI encodable character set 64, the URL-safe base64 alphabet with `=` padding (AI 8030).
        static let cset64 = Charset("GS1's 64 characters, CSET 64: A-Z a-z 0-9 - _ =",
                                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=")
    }

    /// A check on one part of an AI's data (the syntax dictionary's linters that a kiosk can act on).
    enum Check: String, Sendable {
        /// The last digit is the GS1 mod-10 check digit (GTIN, SSCC, GLN, GSRN, ...).
        case csum
        /// YYMMDD; DD 00 is the month's last day.
        case yymmd0
        /// YYMMDD with a real day.
        case yymmdd
        /// YYMMDDHH.
        case yymmddhh
        /// HHMM.
        case hhmm
        /// MM or MMSS (after 8008's YYMMDDHH).
        case mmoptss
        /// YYYYMMDD.
        case yyyymmdd
        /// 0 or 1.
        case yesno
        /// The digit 0 (8003's first).
        case zero
        /// A hyphen (the temperature AIs' minus sign).
        case hyphen
        /// NNMM: piece NN of MM, 1 <= NN <= MM (8006, 8026).
        case pieceoftotal

        /// Why `data` (of the part's charset) fails, or nil.
        func fault(_ data: [UInt8]) -> String? {
            let d = data.map { Int($0) - 48 }
            func number(_ range: Range<Int>) -> Int { d[range].reduce(0) { $0 * 10 + $1 } }
            switch self {
            case .csum:
                let expected = GS1.checkDigit(data.dropLast())
                return d.last == expected ? nil : "check digit \(d.last ?? 0) is wrong, \(expected) expected: a misprinted or misread code"
            case .yymmd0, .yymmdd, .yymmddhh:
                if let fault = Self.date(year: 2000 + number(0..<2), month: number(2..<4), day: number(4..<6), dayZero: self == .yymmd0) { return fault }
                return self == .yymmddhh && number(6..<8) > 23 ? "hour \(number(6..<8)) is not an hour (00 to 23)" : nil
            case .yyyymmdd:
                return Self.date(year: number(0..<4), month: number(4..<6), day: number(6..<8), dayZero: false)
            case .hhmm:
                if number(0..<2) > 23 { return "hour \(number(0..<2)) is not an hour (00 to 23)" }
                return number(2..<4) > 59 ? "minute \(number(2..<4)) is not a minute (00 to 59)" : nil
            case .mmoptss:
                if d.count != 2 && d.count != 4 { return "minutes, or minutes and seconds, take 2 or 4 digits, not \(d.count)" }
                if number(0..<2) > 59 { return "minute \(number(0..<2)) is not a minute (00 to 59)" }
                return d.count == 4 && number(2..<4) > 59 ? "second \(number(2..<4)) is not a second (00 to 59)" : nil
            case .yesno:
                return d == [0] || d == [1] ? nil : "must be 0 (no) or 1 (yes)"
            case .zero:
                return d == [0] ? nil : "must start with 0"
            case .hyphen:
                return data == [UInt8(ascii: "-")] ? nil : "the last character may only be '-' (below zero)"
            case .pieceoftotal:
                let piece = number(0..<2), total = number(2..<4)
                return piece >= 1 && total >= 1 && piece <= total ? nil : "piece \(piece) of \(total) is not a piece of a whole (1 <= piece <= total)"
            }
        }

        /// A calendar date's fault, or nil. Two-digit years are 2000 + YY for the leap years
        /// (the GS1 century rule puts them within 49 years back and 50 ahead; 2000 was leap).
        static func date(year: Int, month: Int, day: Int, dayZero: Bool) -> String? {
            guard (1...12).contains(month) else { return "month \(month) is not a month (01 to 12)" }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
            if day == 0 && dayZero { return nil }
            guard (1...days).contains(day) else {
                return "day \(day) is not in month \(month) (01 to \(days)\(dayZero ? ", or 00 for the month's end" : ""))"
            }
            return nil
        }
    }

    /// One part of an AI's data: `N13`, `X..20`, an optional `[N6]`. Every part but the last
    /// has a fixed length.
    struct Part: Sendable {
        let charset: Charset
        let min: Int
        let max: Int
        let optional: Bool
        let check: Check?
    }

    /// An AI's data.
    struct Spec: Sendable {
        let parts: [Part]
        /// No FNC1 follows it: its first two digits are in the predefined-length table.
        let predefined: Bool
        var minLength: Int { parts.reduce(0) { $0 + ($1.optional ? 0 : $1.min) } }
        var maxLength: Int { parts.reduce(0) { $0 + $1.max } }
    }

    /// The GS1 mod-10 check digit of `digits` (weights 3, 1, 3, ... from the right).
    public static func checkDigit<C: Collection>(_ digits: C) -> Int where C.Element == UInt8 {
        var sum = 0
        for (i, b) in digits.reversed().enumerated() { sum += (Int(b) - 48) * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    /// First two digits of the AIs that need no FNC1 after them, with the length of the AI and
    /// its data (GS1 General Specifications, figure 7.8.5-2). 04, 14, 18 and 19 are reserved:
    /// no AI starts so yet.
    static let predefinedLengths: [String: Int] = [
        "00": 20, "01": 16, "02": 16, "03": 16, "04": 18, "11": 8, "12": 8, "13": 8, "14": 8, "15": 8, "16": 8, "17": 8,
        "18": 8, "19": 8, "20": 4, "31": 10, "32": 10, "33": 10, "34": 10, "35": 10, "36": 10, "41": 16,
    ]

    /// The decimal-point AIs by their first three digits: the fourth, n, is the number of
    /// decimal places, from 0 to the value given (`3103` 001250: 1.250 kg).
    static let decimalFamilies: [String: Int] = {
        var families: [String: Int] = ["390": 9, "391": 9, "392": 9, "393": 9, "394": 3, "395": 5]
        for family in 310...369 where !(317...319).contains(family) && !(338...339).contains(family) && !(358...359).contains(family) {
            families[String(family)] = 5
        }
        return families
    }()

    /// The AI table, as the General Specifications write each AI's format after its AI digits:
    /// `N` digits, `X` CSET 82, `Y` CSET 39, `Z` CSET 64; `N13` fixed, `X..20` up to 20,
    /// `[N6]` an optional last part; `,check` a check on the part. `a-b` is a range of AIs.
    static let formats: [(String, String)] = [
        ("00", "N18,csum"), ("01", "N14,csum"), ("02", "N14,csum"), ("03", "N14,csum"),
        ("10", "X..20"), ("11", "N6,yymmd0"), ("12", "N6,yymmd0"), ("13", "N6,yymmd0"), ("15", "N6,yymmd0"),
        ("16", "N6,yymmd0"), ("17", "N6,yymmd0"), ("20", "N2"), ("21", "X..20"), ("22", "X..20"),
        ("235", "X..28"), ("240", "X..30"), ("241", "X..30"), ("242", "N..6"), ("243", "X..20"), ("250", "X..30"),
        ("251", "X..30"), ("253", "N13,csum [X..17]"), ("254", "X..20"), ("255", "N13,csum [N..12]"),
        ("30", "N..8"), ("37", "N..8"),
        ("3900-3909", "N..15"), ("3910-3919", "N3 N..15"), ("3920-3929", "N..15"), ("3930-3939", "N3 N..15"),
        ("3940-3943", "N4"), ("3950-3955", "N6"),
        ("400", "X..30"), ("401", "X..30"), ("402", "N17,csum"), ("403", "X..30"), ("410-417", "N13,csum"),
        ("420", "X..20"), ("421", "N3 X..9"), ("422", "N3"), ("423", "N..15"), ("424", "N3"), ("425", "N..15"),
        ("426", "N3"), ("427", "X..3"),
        ("4300-4301", "X..35"), ("4302-4306", "X..70"), ("4307", "X2"), ("4308", "X..30"), ("4309", "N10 N10"),
        ("4310-4311", "X..35"), ("4312-4316", "X..70"), ("4317", "X2"), ("4318", "X..20"), ("4319", "X..30"),
        ("4320", "X..35"), ("4321-4323", "N1,yesno"), ("4324-4325", "N6,yymmd0 N4,hhmm"), ("4326", "N6,yymmdd"),
        ("4330-4333", "N6 [X1],hyphen"),
        ("7001", "N13"), ("7002", "X..30"), ("7003", "N6,yymmdd N4,hhmm"), ("7004", "N..4"), ("7005", "X..12"),
        ("7006", "N6,yymmdd"), ("7007", "N6,yymmdd [N6],yymmdd"), ("7008", "X..3"), ("7009", "X..10"), ("7010", "X..2"),
        ("7011", "N6,yymmdd [N4],hhmm"), ("7020-7022", "X..20"), ("7023", "X..30"), ("7030-7039", "N3 X..27"),
        ("7040", "N1 X3"), ("7041", "X..4"), ("710-716", "X..20"),
        ("7230-7239", "X2 X..28"), ("7240", "X..20"), ("7241", "N2"), ("7242", "X..25"),
        ("7250", "N8,yyyymmdd"), ("7251", "N8,yyyymmdd N4,hhmm"), ("7252", "N1"), ("7253-7254", "X..40"), ("7255", "X..10"),
        ("7256", "X..90"), ("7257", "X..70"), ("7258", "N1 X1 N1"), ("7259", "X..40"),
        ("8001", "N14"), ("8002", "X..20"), ("8003", "N1,zero N13,csum [X..16]"), ("8004", "X..30"), ("8005", "N6"),
        ("8006", "N14,csum N4,pieceoftotal"), ("8007", "X..34"), ("8008", "N8,yymmddhh [N..4],mmoptss"), ("8009", "X..50"),
        ("8010", "Y..30"), ("8011", "N..12"), ("8012", "X..20"), ("8013", "X..25"), ("8014", "X..25"),
        ("8017", "N18,csum"), ("8018", "N18,csum"), ("8019", "N..10"), ("8020", "X..25"),
        ("8026", "N14,csum N4,pieceoftotal"), ("8030", "Z..90"), ("8110", "X..70"), ("8111", "N4"), ("8112", "X..70"),
        ("8200", "X..70"), ("90", "X..30"), ("91-99", "X..90"),
    ]

    /// Every AI with its data, from `formats` and the decimal-point families.
    static let table: [String: Spec] = {
        var table: [String: Spec] = [:]
        func add(_ ai: String, _ format: String) {
            table[ai] = Spec(parts: parts(format), predefined: predefinedLengths[String(ai.prefix(2))] != nil)
        }
        for (ais, format) in formats {
            let bounds = ais.split(separator: "-").map(String.init)
            if bounds.count == 1 { add(ais, format); continue }
            let width = bounds[0].count
            for n in Int(bounds[0])!...Int(bounds[1])! {
                let digits = String(n)
                add(String(repeating: "0", count: width - digits.count) + digits, format)
            }
        }
        for (family, places) in decimalFamilies where family.hasPrefix("3") && !family.hasPrefix("39") {
            for n in 0...places { add(family + String(n), "N6") }
        }
        return table
    }()

    /// `N6,yymmd0 [N4],hhmm` as parts.
    static func parts(_ format: String) -> [Part] {
        format.split(separator: " ").map { word in
            let optional = word.hasPrefix("[")
            let pieces = word.filter { $0 != "[" && $0 != "]" }.split(separator: ",")
            let type = pieces[0]
            let charset: Charset = switch type.first {
            case "N": .numeric
            case "Y": .cset39
            case "Z": .cset64
            default: .cset82
            }
            let length = type.dropFirst()
            let variable = length.hasPrefix("..")
            let n = Int(length.drop { $0 == "." }) ?? 0
            return Part(charset: charset, min: variable ? 1 : n, max: n, optional: optional,
                        check: pieces.count > 1 ? Check(rawValue: String(pieces[1])) : nil)
        }
    }

    /// Digital Link primary keys and, for each, its key qualifiers in their order (one list
    /// per alternative): GS1 Digital Link standard 1.4, section 4.
    static let dlKeys: [String: [[String]]] = [
        "01": [["22", "10", "21"], ["235"]], "8006": [["22", "10", "21"]], "414": [["254"], ["7040"]], "415": [["8020"]],
        "417": [["7040"]], "8004": [["7040"]], "8010": [["8011"]], "8017": [["8019"]], "8018": [["8019"]],
        "00": [[]], "253": [[]], "255": [[]], "401": [[]], "402": [[]], "8003": [[]], "8013": [[]],
    ]
}
