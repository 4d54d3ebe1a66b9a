package import ApsioCore
package import ApsioJSON
/// The JSON body of an answer on the live channel (hello, `next`, and the body of any refusal),
/// read with the strict parser that reads every body a backend sends: a body with two equal keys
/// or nested past `maxJSONDepth` is no body at all, so this device and the backend's own reader
/// never disagree about what it said. `HelloAnswer` and `NextAnswer` then read it defensively.
package enum LiveAnswerBody {
    /// nil for an empty body or one that is not JSON within the limits.
    package static func parse(_ bytes: [UInt8], limits: Limits = .spec) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        return try? JSONParser(maxBytes: limits.maxLiveAnswerBytes, maxDepth: limits.maxJSONDepth).parse(bytes)
    }
}
