/// Names one request the channel asked the runtime to make, so that an answer that arrives after
/// the channel moved on (a cancelled `next`, a hello from before a 401) is recognised and ignored.
package struct LiveRequestID: Sendable, Hashable, CustomStringConvertible {
    package let value: UInt64
    package var description: String { "#\(value)" }
}

/// What came back for a request.
package enum LiveResponse: Sendable, Equatable {
    /// An HTTP answer. `body` is its bytes as they came, or empty where nothing reads them: the
    /// channel reads those of a hello or `next` answer through its `LiveBodyCoding`, and ingest
    /// none. `retryAfter` is the header's delay from now, in either of its forms.
    case status(Int, body: [UInt8], retryAfter: Duration?)
    /// No answer: refused, reset, timed out, or unreadable. Treated as a 5xx is.
    case failed
}
