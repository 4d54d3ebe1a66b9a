package import ApsioCore
import ApsioJSON

/// What an OTLP/HTTP receiver says it did not keep of an accepted batch: an
/// `ExportLogsServiceResponse` whose `partial_success` counts the records it rejected and says why
/// (the OTLP specification: the batch is not sent again, the count is the sender's to report).
///
/// The body is a peer's: read strictly (the strict JSON parser, or protobuf's wire format), and a
/// message kept only as a short printable line, since it goes to the journal and `apsioctl status`.
package struct OTLPPartialSuccess: Sendable, Equatable {
    package var rejectedRecords: Int
    package var message: String?

    package static let maxMessageBytes = 200

    package init(rejectedRecords: Int, message: String?) {
        self.rejectedRecords = rejectedRecords
        self.message = message
    }

    /// The body of a 2xx answer in `encoding`: the rejection, or nil when nothing was rejected or
    /// the body says nothing readable (an empty body is a whole success).
    package static func read(_ body: [UInt8], encoding: OTLPEncoding) -> OTLPPartialSuccess? {
        guard !body.isEmpty else { return nil }
        let found: (rejected: Int64, message: String?)?
        switch encoding {
        case .json: found = readJSON(body)
        case .protobuf: found = readProtobuf(body)
        }
        guard let found, found.rejected > 0 else { return nil }
        return OTLPPartialSuccess(rejectedRecords: Int(clamping: found.rejected), message: found.message.flatMap(printable))
    }

    /// `{"partialSuccess":{"rejectedLogRecords":"5","errorMessage":"…"}}`: int64 as a string, as
    /// the JSON mapping writes it, or as a number.
    private static func readJSON(_ body: [UInt8]) -> (rejected: Int64, message: String?)? {
        guard let value = try? JSONParser(maxBytes: 64 << 10, maxDepth: 8).parse(body),
            let partial = value["partialSuccess"]
        else { return nil }
        let rejected: Int64? = switch partial["rejectedLogRecords"] {
        case .string(let text)?: Int64(text)
        case .number(let number)?: number.rounded() == number && abs(number) < 9e15 ? Int64(number) : nil
        default: nil
        }
        return rejected.map { ($0, partial["errorMessage"]?.stringValue) }
    }

    /// ExportLogsServiceResponse { 1: ExportLogsPartialSuccess { 1: int64, 2: string } }.
    private static func readProtobuf(_ body: [UInt8]) -> (rejected: Int64, message: String?)? {
        body.withUnsafeBytes { bytes in
            let reader = ProtobufReader(bytes: bytes)
            guard let partial = try? reader.fields(in: 0..<bytes.count).last(where: { $0.number == 1 }),
                let range = try? partial.message(), let fields = try? reader.fields(in: range)
            else { return nil }
            let rejected = (try? fields.last { $0.number == 1 }?.varint()).flatMap { $0 }.map { Int64(bitPattern: $0) } ?? 0
            let message = fields.last { $0.number == 2 }.flatMap { try? reader.string($0) }
            return (rejected, message)
        }
    }

    /// The message as one short line: control characters replaced, cut between Unicode scalars.
    private static func printable(_ text: String) -> String? {
        var line = ""
        for scalar in text.unicodeScalars {
            let next = scalar.properties.generalCategory == .control ? " " : String(scalar)
            guard line.utf8.count + next.utf8.count <= maxMessageBytes else { break }
            line += next
        }
        let trimmed = line.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        return trimmed.isEmpty ? nil : String(trimmed)
    }
}
