import ApsioCore

/// The rules on one device at a time, for a hub whose devices live in a store between requests
/// (the fleet's Redis): a step loads the device into a copy of the rules (`loading`), runs one
/// request or expiry on it, and hands back what the store keeps (`unloaded`). The store never
/// holds a device token, only its SHA-256; the token a request presents is the device's for the
/// step when its hash is the kept one.
extension LiveHub {
    /// One device as a store keeps it between steps.
    struct StoredDevice: Sendable {
        /// Its presence's token is a stand-in (`standIn(forHash:)`), never the token.
        var device: HubDevice
        var tokenHash: String?
        /// The device's own counters: a store numbers each device's events and sessions apart.
        var lastEventSeq: UInt64
        var lastSessionNumber: UInt64
    }

    /// Who holds the device's `next` during the step.
    enum NextHolding: Sendable {
        /// Nobody: an answer the step would give it goes nowhere.
        case none
        /// This caller, under this number: the step may answer it (`takeReleases()`).
        case held(HoldID)
        /// Another instance: a stand-in hold shows whether the step would have answered it
        /// (`LoadedStep.sentinel`), so that the holder can be woken to answer it itself.
        case elsewhere
    }

    /// A copy of the rules holding one device.
    struct LoadedStep: Sendable {
        var hub: LiveHub
        /// The stand-in hold of `NextHolding.elsewhere`.
        var sentinel: HoldID?
    }

    /// What a presence carries in place of its token when the request did not present it: not 64
    /// hex characters, so no token a device sends ever matches it.
    static func standIn(forHash hash: String) -> String { "#" + hash }

    /// These rules with `stored` as their only device. `presented` is the token the request
    /// carried and its SHA-256: the device's token for this step when the hash is the kept one.
    /// A hold ends at `holdUntil`.
    func loading(
        _ key: DeviceKey, _ stored: StoredDevice, presented: (token: String, hash: String)?, next: NextHolding,
        holdUntil: MonotonicInstant
    ) -> LoadedStep {
        var hub = self
        var device = stored.device
        if let presented, presented.hash == stored.tokenHash, device.presence != nil {
            device.presence!.token = presented.token
            hub.tokens[presented.token] = key
        }
        hub.lastEventSeq = stored.lastEventSeq
        hub.lastSessionNumber = stored.lastSessionNumber
        var sentinel: HoldID?
        switch next {
        case .none:
            break
        case .held(let id):
            hub.holds[id] = (key, holdUntil)
            device.heldNext = id
        case .elsewhere:
            sentinel = hub.hold(key, until: holdUntil)
            device.heldNext = sentinel
        }
        if !device.isEmpty || device.heldNext != nil { hub.devices[key] = device }
        return LoadedStep(hub: hub, sentinel: sentinel)
    }

    /// What the store keeps of the device after a step: its state without the step's hold, and
    /// its token (a new one, from a hello or a replace) as its SHA-256; nil when nothing is left.
    func unloaded(_ key: DeviceKey) -> StoredDevice? {
        guard var device = devices[key] else { return nil }
        device.heldNext = nil
        var tokenHash: String?
        if let token = device.presence?.token {
            let hash = token.hasPrefix("#") ? String(token.dropFirst()) : Hex.lowercase(hashing.sha256(Array(token.utf8)))
            tokenHash = hash.isEmpty ? nil : hash
            device.presence!.token = Self.standIn(forHash: hash)
        }
        return StoredDevice(device: device, tokenHash: tokenHash, lastEventSeq: lastEventSeq, lastSessionNumber: lastSessionNumber)
    }

    /// When the stored device next needs a step of its own (a session's silence, a presence
    /// running out): the rules' deadline without the step's hold, which ends with its request.
    func deadlineAfterStep(_ key: DeviceKey) -> MonotonicInstant? {
        var hub = self
        hub.holds = [:]
        hub.devices[key]?.heldNext = nil
        return hub.nextDeadline
    }
}
