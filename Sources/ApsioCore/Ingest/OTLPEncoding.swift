/// How an app's batches are written (its app file's `Encoding=`): OTLP/HTTP's two encodings.
package enum OTLPEncoding: String, Sendable, CaseIterable {
    /// The binary wire format, the OTLP specification's default for senders.
    case protobuf
    /// The protobuf JSON mapping.
    case json

    package var contentType: String {
        switch self {
        case .protobuf: "application/x-protobuf"
        case .json: "application/json"
        }
    }

    /// The other one: what a receiver that refused this one with 415 is sent instead.
    package var other: OTLPEncoding { self == .protobuf ? .json : .protobuf }
}
