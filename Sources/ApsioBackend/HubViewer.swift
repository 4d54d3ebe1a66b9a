import ApsioCore

/// A person watching one device, with the events not yet fetched from their stream.
struct HubViewer: Sendable {
    let identity: HubViewerIdentity
    var lastSeen: MonotonicInstant
    var events: [StreamEvent] = []
    var eventBytes = 0
    /// Events dropped because the viewer fell behind the queue's bounds, since their last fetch.
    var dropped = 0
    var heldStream: HoldID?

    init(identity: HubViewerIdentity, now: MonotonicInstant) {
        self.identity = identity
        lastSeen = now
    }

    mutating func append(_ event: StreamEvent, limits: BackendLimits) {
        events.append(event)
        eventBytes += event.json.utf8.count
        var cut = 0
        while cut < events.count - 1,
            events.count - cut > limits.maxEventsPerViewer || eventBytes > limits.maxEventBytesPerViewer
        {
            eventBytes -= events[cut].json.utf8.count
            cut += 1
        }
        if cut > 0 {
            events.removeFirst(cut)
            dropped += cut
        }
    }

    /// Forgets what the viewer has already fetched.
    mutating func acknowledge(through seq: UInt64) {
        let cut = events.prefix { $0.seq <= seq }.count
        guard cut > 0 else { return }
        eventBytes -= events.prefix(cut).reduce(0) { $0 + $1.json.utf8.count }
        events.removeFirst(cut)
    }

    /// Drops a session's live data: once the session ends it is gone, fetched or not.
    mutating func dropLiveData(ofSession number: UInt64) {
        events.removeAll { event in
            guard event.liveDataOfSession == number else { return false }
            eventBytes -= event.json.utf8.count
            return true
        }
    }
}
