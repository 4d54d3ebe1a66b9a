/// How long an answer on the live channel tells the device to send nothing at all (16.4).
///
/// The backend names a moment with `Retry-After` on a 429, 5xx or 3xx, and 402 and 403 mean what
/// they mean on ingest: sending pauses for `Retry-After`, an hour without one. The moment is the
/// backend's, not one request's: whichever request was told — hello, `next`, `frames` or
/// `results` — the channel sends none of them before it, and keeps it past the session's end, so
/// the hello that follows waits for it too.
package enum BackendHold {
    /// The wait `response` names, cut to a day; nil when it names none (a success, a 401, a 409, a
    /// failure without `Retry-After`, which the channel's own backoff handles).
    package static func wait(for response: LiveResponse, limits: Limits = .spec) -> Duration? {
        guard case .status(let code, _, let retryAfter) = response else { return nil }
        if code == 402 || code == 403 { return min(retryAfter ?? limits.defaultRefusalPause, limits.maxRetryAfter) }
        guard code == 429 || code >= 500 || (300..<400).contains(code), let retryAfter else { return nil }
        return min(max(retryAfter, .zero), limits.maxRetryAfter)
    }
}
