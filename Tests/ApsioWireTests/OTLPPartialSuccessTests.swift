import ApsioCore
import ApsioWire
import Testing

/// An accepted batch's answer, read for what the receiver did not keep (OTLP's `partial_success`),
/// from a peer: strictly, with its message one short printable line.
@Suite struct OTLPPartialSuccessTests {
    static func json(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func theJSONMappingSaysHowManyAndWhy() {
        let read = OTLPPartialSuccess.read(
            Self.json(#"{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"too old"}}"#), encoding: .json)
        #expect(read == OTLPPartialSuccess(rejectedRecords: 3, message: "too old"))
        // int64 as a number is read too; a whole success is nothing to count.
        #expect(OTLPPartialSuccess.read(Self.json(#"{"partialSuccess":{"rejectedLogRecords":2}}"#), encoding: .json)?.rejectedRecords == 2)
        for whole in ["{}", #"{"partialSuccess":{}}"#, #"{"partialSuccess":{"rejectedLogRecords":"0","errorMessage":"ok"}}"#, ""] {
            #expect(OTLPPartialSuccess.read(Self.json(whole), encoding: .json) == nil, "\(whole)")
        }
    }

    /// ExportLogsServiceResponse { partial_success { rejected_log_records: 300, error_message: "x" } }.
    @Test func theBinaryFormSaysTheSame() {
        let body: [UInt8] = [0x0a, 0x06, 0x08, 0xac, 0x02, 0x12, 0x01, 0x78]
        #expect(OTLPPartialSuccess.read(body, encoding: .protobuf) == OTLPPartialSuccess(rejectedRecords: 300, message: "x"))
        #expect(OTLPPartialSuccess.read([0x0a, 0x00], encoding: .protobuf) == nil)
    }

    /// What is not such an answer counts nothing, and no length or value traps.
    @Test(arguments: [
        ([0x0a, 0x09, 0x08], OTLPEncoding.protobuf),  // a length past the end
        ([0x0a, 0x02, 0x08], .protobuf),  // a varint cut short
        (Array(repeating: 0xff, count: 12), .protobuf),
        (Array(#"{"partialSuccess":{"rejectedLogRecords":"x"}}"#.utf8), .json),
        (Array(#"{"partialSuccess":{"rejectedLogRecords":1e300}}"#.utf8), .json),
        (Array(#"{"partialSuccess":{"rejectedLogRecords":"1","rejectedLogRecords":"2"}}"#.utf8), .json),
        (Array("not json".utf8), .json),
    ] as [([UInt8], OTLPEncoding)])
    func anAnswerThatIsNotOneCountsNothing(body: [UInt8], encoding: OTLPEncoding) {
        #expect(OTLPPartialSuccess.read(body, encoding: encoding) == nil)
    }

    /// The message goes to the journal and `apsioctl status`: one line, at most 200 bytes.
    @Test func theMessageIsOneShortLine() throws {
        let long = String(repeating: "é", count: 300)
        let read = try #require(OTLPPartialSuccess.read(
            Self.json(#"{"partialSuccess":{"rejectedLogRecords":"1","errorMessage":"  bad\nline\u001b[31m "# + long + #""}}"#),
            encoding: .json))
        let message = try #require(read.message)
        #expect(!message.contains("\n") && !message.contains("\u{1b}"))
        #expect(message.hasPrefix("bad line [31m"))
        #expect(message.utf8.count <= OTLPPartialSuccess.maxMessageBytes)
    }
}
