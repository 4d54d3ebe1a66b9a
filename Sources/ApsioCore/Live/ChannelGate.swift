/// Why a channel whose keys hold is paused (16.1, 16.4's `frames` reasons).
package enum PauseReason: String, Sendable, Equatable, CaseIterable {
    case inactive
    case lowPower = "low_power"
    case lowData = "low_data"
    case dataSaver = "data_saver"
}

/// The state of the live channel (16.1): the `live.open` function of B.2.
package enum ChannelState: Sendable, Equatable {
    case open
    case paused(PauseReason)
    case closed

    package var isClosed: Bool { self == .closed }
}

/// Everything `live.open` reads.
package struct ChannelGateInputs: Sendable, Equatable {
    /// `apsioctl allow-live on` (the app's `setLiveInspection`).
    package var allowed: Bool
    package var consent: Bool
    package var killSwitch: Bool
    /// An unexpired `live.testers` entry matches this install.
    package var testerMatches: Bool
    package var foreground: Foreground
    package var lowPower: Bool
    package var lowData: Bool
    package var dataSaver: Bool

    package init(
        allowed: Bool = false, consent: Bool = false, killSwitch: Bool = false, testerMatches: Bool = false,
        foreground: Foreground = .background, lowPower: Bool = false, lowData: Bool = false,
        dataSaver: Bool = false
    ) {
        self.allowed = allowed
        self.consent = consent
        self.killSwitch = killSwitch
        self.testerMatches = testerMatches
        self.foreground = foreground
        self.lowPower = lowPower
        self.lowData = lowData
        self.dataSaver = dataSaver
    }
}

package enum ChannelGate {
    /// Closed unless both keys, consent and an unkilled policy hold and the app is in the
    /// foreground. When several pause reasons hold, the first of inactive, low_power, low_data,
    /// data_saver is named: interruption is what the viewer most needs to know, then the modes in
    /// the order 16.3 lists them.
    package static func state(_ inputs: ChannelGateInputs) -> ChannelState {
        guard inputs.allowed, inputs.consent, !inputs.killSwitch, inputs.testerMatches else { return .closed }
        switch inputs.foreground {
        case .background: return .closed
        case .interrupted: return .paused(.inactive)
        case .active: break
        }
        if inputs.lowPower { return .paused(.lowPower) }
        if inputs.lowData { return .paused(.lowData) }
        if inputs.dataSaver { return .paused(.dataSaver) }
        return .open
    }
}
