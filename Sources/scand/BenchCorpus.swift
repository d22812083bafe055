import POSIX
import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// What `scand bench decode` reads of a corpus besides its images: the manifest and the errata,
/// both hostile input (files given by someone else), checked whole before anything is decoded.
extension DecodeBench {
    struct Record {
        var file: String
        var symbology: String?
        var text: String?
        var hex: String?
        var difficulty: String
        /// The other codes truly in the image (the misread corpus: `bench/make-misreads.py`);
        /// nil: any result that matches counts, whatever else is read. `TEXT+ADDON` also names
        /// that code's add-on (`TEXT+`: none; the add-on traps, `bench/make-addon-traps.py`).
        var others: [String]?
        /// The add-on's digits (the add-on set): a read counts whole only with them.
        var addon: String?
    }

    /// A corpus's manifest or errata file that cannot be used: said as it is, without the
    /// command's usage (the command line was right; the file is not).
    struct FileProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// The corpus's manifest.json: an array of {file, symbology, text, hex, difficulty}. Its
    /// files must lie inside the corpus (no leading /, no .., no link out of it) and be named
    /// once; every one that does not is counted and the first few named. A record's fields are
    /// the known ones, each of its type: a misspelt `Text` would judge the image as holding no
    /// code.
    static func manifest(_ path: String) throws -> [Record] {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, limit: 64 << 20) } catch { throw FileProblem(description: "\(path): \(error)") }
        let json: JSONValue
        do { json = try JSONValue.parse(bytes) } catch { throw FileProblem(description: "\(path): \(error)") }
        guard let items = json.array else { throw FileProblem(description: "\(path): not an array of records") }
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let root = Posix.resolved(folder.isEmpty ? "." : folder)
        var records: [Record] = [], outside: [String] = [], seen: Set<String> = [], twice = NamedOnce()
        for (n, item) in items.enumerated() {
            let record = "\(path): record \(n + 1)"
            guard let fields = item.object else { throw FileProblem(description: "\(record) is not an object") }
            if let unknown = fields.keys.sorted().first(where: { !Self.manifestFields.contains($0) }) {
                throw FileProblem(description: "\(record) has a field \(quoted(unknown)) that a manifest does not have (\(Self.manifestFields.joined(separator: ", ")))")
            }
            for key in ["file", "symbology", "text", "hex", "difficulty", "addon"] {
                guard let value = fields[key], value != .null else { continue }
                guard value.string != nil else { throw FileProblem(description: "\(record): \(key) is not a string") }
            }
            if let others = fields["others"], others != .null, others.array?.allSatisfy({ $0.string != nil }) != true {
                throw FileProblem(description: "\(record): others is not an array of strings")
            }
            if let hex = fields["hex"]?.string {
                guard hex.count % 2 == 0, hex.allSatisfy(\.isHexDigit) else { throw FileProblem(description: "\(record): hex is not bytes in hex digits") }
                guard fields["text"]?.string != nil else { throw FileProblem(description: "\(record): hex without its text") }
            }
            // An add-on is the digits of an EAN-2 or EAN-5 ("" for none), and only an EAN/UPC has one.
            if let addon = fields["addon"]?.string {
                guard [0, 2, 5].contains(addon.utf8.count), addon.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                    throw FileProblem(description: "\(record): addon is not 2 or 5 digits (or \"\" for a code without one)")
                }
                if let symbology = fields["symbology"]?.string, !Self.addOnSymbologies.contains(symbology) {
                    throw FileProblem(description: "\(record): addon on a \(quoted(symbology)): only an EAN-13, EAN-8, UPC-A or UPC-E has one")
                }
            }
            if let size = fields["size"], size != .null {
                let sides = size.array?.compactMap(\.number) ?? []
                guard size.array?.count == 2, sides.count == 2, sides.allSatisfy({ $0 >= 1 && $0 <= 1_000_000 && $0 == $0.rounded() }) else {
                    throw FileProblem(description: "\(record): size is not [width, height] in pixels")
                }
            }
            guard let file = fields["file"]?.string else { throw FileProblem(description: "\(record) has no file") }
            // A manifest names files in its corpus, never elsewhere, not even through a link.
            guard Self.isInside(file) else { outside.append(quoted(file)); continue }
            let real = root == nil ? nil : Posix.resolved(folder.isEmpty ? file : folder + "/" + file)
            if let root, let real, !real.hasPrefix(root.hasSuffix("/") ? root : root + "/") {
                outside.append(quoted(file) + " (it leads to " + quoted(real) + ")")
                continue
            }
            // One image once, however it is named (./a.png, a link to it inside the corpus).
            if !seen.insert(real ?? Self.plain(file)).inserted {
                twice.add(quoted(file))
                continue
            }
            records.append(Record(file: file, symbology: item["symbology"]?.string, text: item["text"]?.string, hex: item["hex"]?.string,
                                  difficulty: item["difficulty"]?.string ?? "", others: item["others"]?.array?.compactMap(\.string),
                                  addon: item["addon"]?.string))
        }
        try refuse(outside, in: path, "not inside the corpus (no leading /, no .., no link out of it)")
        try refuse(twice.names, in: path, "named more than once (one record an image)")
        return records
    }

    /// The symbologies a record may give an `addon` (an ISBN's record says EAN-13).
    static let addOnSymbologies: Set<String> = ["EAN-13", "EAN-8", "UPC-A", "UPC-E", "ISBN-13"]

    /// The fields a manifest's record may have (`size`: the image's, as the generators write it).
    static let manifestFields = ["addon", "difficulty", "file", "hex", "others", "size", "symbology", "text"]

    /// Whether `file` is a path inside a folder, as written: not empty, no leading /, no `..`.
    static func isInside(_ file: String) -> Bool {
        !file.isEmpty && !file.hasPrefix("/") && !file.split(separator: "/").contains("..") && !file.utf8.contains(0)
    }

    /// `file` without `.` components (`./a.png` and `a.png` are one file).
    static func plain(_ file: String) -> String {
        file.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    /// A name from a corpus file, quoted and escaped for the terminal, cut (with an ellipsis) past 80 characters.
    static func quoted(_ name: String) -> String {
        "\"" + PayloadText.escaped(String(name.prefix(80))) + (name.count > 80 ? "..." : "") + "\""
    }

    /// Nothing where `names` is empty; else the file `path` refused: how many of its files are
    /// `what`, the first five named.
    static func refuse(_ names: [String], in path: String, _ what: String) throws {
        guard !names.isEmpty else { return }
        let named = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? " and \(names.count - 5) more" : "")
        throw FileProblem(description: "\(path): \(names.count) file\(names.count == 1 ? " is" : "s are") \(what): \(named)")
    }

    /// Names in the order first given, each once (a hostile file may repeat one 200,000 times).
    struct NamedOnce {
        private(set) var names: [String] = []
        private var seen: Set<String> = []
        mutating func add(_ name: String) { if seen.insert(name).inserted { names.append(name) } }
    }

    /// `records` with the expected texts an errata file corrects (`--errata`), how many it
    /// corrected, and how many of its files this corpus lacks (a subset of the corpus: passed
    /// over). Each correction names a file inside the corpus once, its text (null: the image
    /// holds no code) and why.
    static func corrected(_ records: [Record], by path: String) throws -> (records: [Record], count: Int, absent: Int) {
        let json: JSONValue
        do { json = try JSONValue.parse(try FileBytes.read(path, limit: 1 << 20)) } catch { throw FileProblem(description: "\(path): \(error)") }
        guard let items = json.array else { throw FileProblem(description: "\(path): not an array of {file, text, why}") }
        var records = records
        // Each record by its file, looked up once a correction (not a search of the corpus each).
        let index = Dictionary(records.indices.map { (plain(records[$0].file), $0) }, uniquingKeysWith: { first, _ in first })
        var seen: Set<String> = [], twice = NamedOnce(), outside: [String] = [], absent = 0
        for (n, item) in items.enumerated() {
            guard let file = item["file"]?.string, let text = item["text"], text.string != nil || text == .null,
                  let why = item["why"]?.string, !why.isEmpty, text.string?.isEmpty != true else {
                throw FileProblem(description: "\(path): correction \(n + 1): each correction needs its file, a text (null for no code) and why")
            }
            guard isInside(file) else { outside.append(quoted(file)); continue }
            guard seen.insert(plain(file)).inserted else {
                twice.add(quoted(file))
                continue
            }
            guard let i = index[plain(file)] else { absent += 1; continue }
            records[i].text = text.string
            records[i].hex = nil
        }
        try refuse(outside, in: path, "not a path inside the corpus (no leading /, no ..)")
        try refuse(twice.names, in: path, "corrected more than once")
        return (records, seen.count - absent, absent)
    }
}
