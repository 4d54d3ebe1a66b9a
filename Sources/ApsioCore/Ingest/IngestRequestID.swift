/// Names one batch the delivery asked the runtime to send, so that an answer for a batch that was
/// cancelled (consent withdrawn, kill switch) is recognised and ignored.
public struct IngestRequestID: Sendable, Hashable, CustomStringConvertible {
    public let value: UInt64

    public init(value: UInt64) { self.value = value }

    public var description: String { "ingest#\(value)" }
}
