import ScanCore
import Testing

/// UPC-E to UPC-A: each rule of the zero suppression, and what is not a UPC-E.
@Suite struct UPCETests {
    @Test(arguments: [
        ("04252614", "042100005264"), // last digit 0-2: it becomes the manufacturer's third digit
        ("06543208", "065000004328"),
        ("01234531", "012300000451"), // 3: manufacturer of three digits
        ("19876544", "198760000054"), // 4: of four (number system 1)
        ("01234565", "012345000065"), // 5-9: of five, the product is that digit
        ("01234532", nil),            // check digit wrong
        ("21234565", nil),            // number system 2 has no UPC-E
        ("0123456", nil), ("0123456X", nil), ("", nil),
    ] as [(String, String?)])
    func expansion(upcE: String, upcA: String?) {
        #expect(UPCE.upcA(upcE) == upcA)
    }

    @Test func onlyUPCESymbolsChange() {
        let e = UPCE.expanded(Symbol(symbology: .upcE, text: "04252614"))
        #expect(e.text == "042100005264" && e.symbology == .upcE)
        let ean8 = Symbol(symbology: .ean8, text: "96385074")
        #expect(UPCE.expanded(ean8) == ean8)
    }
}
