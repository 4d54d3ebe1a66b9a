import ApsioCore

/// A person watching one device, and when they last showed they still do (a watch or a poll of
/// their stream): the stream itself is kept by the instance they poll (`FleetStreamRing`).
struct HubViewer: Sendable {
    let identity: HubViewerIdentity
    var lastSeen: MonotonicInstant

    init(identity: HubViewerIdentity, now: MonotonicInstant) {
        self.identity = identity
        lastSeen = now
    }
}
