import ApsioCore

/// A hello that changes nothing but the presence it renews (the device is still there, with
/// what it says of itself): the most frequent request of a fleet, 333 a second for 5,000 boxes
/// at a 15 s interval. On Redis it is answered from the instance's copy of the document and
/// written a moment later with the others (`IndexedDocuments.Touch`), so it costs no round trip.
///
/// That is sound only while the copy is true in what such a hello decides on: the token, the
/// viewers (the answer's count, and whether a session starts), the session and the caps. A step
/// that changes any of them (`HelloView`) announces it to the other instances on the device's
/// wake-up channel (`FleetWake.changedBy`), which forget their copy; an instance that may have
/// missed an announcement (its subscription was away, or it fell behind) forgets them all.
extension FleetDeviceDocument {
    /// What a renewing hello decides on besides the hello itself.
    struct HelloView: Equatable {
        var present: Bool
        var tokenHash: String?
        var viewers: [String]
        var capsReached: Bool
        var session: UInt64?
    }

    var helloView: HelloView {
        HelloView(
            present: device.presence != nil, tokenHash: tokenHash, viewers: device.viewers.keys.sorted(),
            capsReached: device.capsReached, session: device.session?.number)
    }

    /// This document with what `presence` (of a hello with this document's token) says of the
    /// device: when it was last seen, and what it said of itself, unless a later hello already
    /// spoke. Unchanged without a presence.
    func touched(by presence: HubPresence) -> FleetDeviceDocument {
        guard var mine = device.presence else { return self }
        mine.lastSeen = max(mine.lastSeen, presence.lastSeen)
        if presence.lastHelloUnixMs >= mine.lastHelloUnixMs {
            mine.tester = presence.tester
            mine.interval = presence.interval
            mine.session = presence.session
            mine.model = presence.model
            mine.os = presence.os
            mine.release = presence.release
            mine.reason = presence.reason
            mine.lastHelloUnixMs = presence.lastHelloUnixMs
        }
        var next = self
        next.device.presence = mine
        return next
    }

    /// Whether `after` is this document renewed by a hello and nothing else.
    func isOnlyTouched(into after: FleetDeviceDocument, encoded: [UInt8]) -> Bool {
        guard let presence = after.device.presence, device.presence != nil, tokenHash == after.tokenHash else { return false }
        return touched(by: presence).encoded() == encoded
    }
}
