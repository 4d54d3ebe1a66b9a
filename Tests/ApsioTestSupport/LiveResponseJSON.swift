package import ApsioCore
package import ApsioJSON

extension LiveResponse {
    /// An answer whose body is `json`, in the bytes `JSONWriter` makes of it: what a scripted
    /// backend sends, and what the channel reads.
    package static func status(_ code: Int, json: JSONValue, retryAfter: Duration? = nil) -> LiveResponse {
        .status(code, body: JSONWriter.encode(json), retryAfter: retryAfter)
    }
}
