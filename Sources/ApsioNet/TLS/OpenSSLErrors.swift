internal import COpenSSL

/// OpenSSL's error queue, read into one line. The queue is per thread: read it right after the
/// call that failed, with no suspension point in between.
enum OpenSSLErrors {
    static func drain(orElse fallback: String = "unknown OpenSSL error") -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if reasons.count < 4 && !reasons.contains(text) { reasons.append(text) }
        }
        return reasons.isEmpty ? fallback : reasons.joined(separator: "; ")
    }
}
