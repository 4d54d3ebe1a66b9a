import ApsioCore
import Testing

@Suite struct UnitForegroundTests {
    /// Every ActiveState systemd has, and a made-up one.
    static let activeStates = ["active", "reloading", "inactive", "failed", "activating", "deactivating",
                               "maintenance", "refreshing", "something-new", ""]
    /// Every FreezerState systemd has (256's by-parent ones included), none, and a made-up one.
    static let freezerStates: [String?] = [nil, "", "running", "freezing", "frozen", "thawing",
                                           "frozen-by-parent", "freezing-by-parent", "something-new"]

    static func expected(_ active: String, _ freezer: String?) -> Foreground {
        let running = freezer == nil || freezer == "" || freezer == "running"
        switch active {
        case "active": return running ? .active : .interrupted
        case "reloading", "activating", "refreshing": return .interrupted
        default: return .background
        }
    }

    @Test(arguments: activeStates)
    func everyFreezerStateUnder(activeState: String) {
        for freezer in Self.freezerStates {
            #expect(Foreground(activeState: activeState, freezerState: freezer) == Self.expected(activeState, freezer),
                    "ActiveState=\(activeState) FreezerState=\(freezer ?? "nil")")
        }
    }

    /// The rows LINUX-PROFILE §0 names, spelled out, so the table above cannot drift from the
    /// profile without a named case failing too.
    @Test func theProfilesRows() {
        #expect(Foreground(activeState: "active", freezerState: "running") == .active)
        #expect(Foreground(activeState: "active", freezerState: nil) == .active)
        #expect(Foreground(activeState: "reloading", freezerState: "running") == .interrupted)
        #expect(Foreground(activeState: "activating", freezerState: nil) == .interrupted)
        #expect(Foreground(activeState: "active", freezerState: "frozen") == .interrupted)
        #expect(Foreground(activeState: "active", freezerState: "freezing") == .interrupted)
        #expect(Foreground(activeState: "active", freezerState: "thawing") == .interrupted)
        #expect(Foreground(activeState: "inactive", freezerState: "frozen") == .background)
        #expect(Foreground(activeState: "deactivating", freezerState: "running") == .background)
        #expect(Foreground(activeState: "failed", freezerState: nil) == .background)
    }

    @Test func unknownStateIsTheBackground() {
        #expect(Foreground(unitState: nil) == .background)
        #expect(UnitState.notFound.foreground == .background)
    }

    @Test func sessionIDIsTheInvocationAsUUID() {
        let state = UnitState(activeState: "active", invocationID: "0123456789abcdef0123456789abcdef")
        #expect(state.sessionID == "01234567-89ab-cdef-0123-456789abcdef")
        #expect(UnitState(activeState: "active", invocationID: String(repeating: "0", count: 32)).sessionID == nil)
        #expect(UnitState(activeState: "inactive").sessionID == nil)
    }

    @Test func changesNameTheNewForegroundAndSession() {
        let first = UnitState(activeState: "active", invocationID: String(repeating: "a", count: 32))
        let reloading = UnitState(activeState: "reloading", invocationID: first.invocationID)
        let second = UnitState(activeState: "active", invocationID: String(repeating: "b", count: 32))

        let start = UnitStateChange.between(nil, first, lastSession: nil)
        #expect(start == UnitStateChange(foreground: .active, newSession: first.sessionID))

        #expect(UnitStateChange.between(first, reloading, lastSession: first.sessionID)
            == UnitStateChange(foreground: .interrupted))
        #expect(UnitStateChange.between(first, first, lastSession: first.sessionID).isEmpty)

        // A restart seen only as its result (the stop in between was not observed).
        #expect(UnitStateChange.between(first, second, lastSession: first.sessionID)
            == UnitStateChange(newSession: second.sessionID))

        // The bus went away and came back with the same invocation: no new session.
        #expect(UnitStateChange.between(first, nil, lastSession: first.sessionID)
            == UnitStateChange(foreground: .background))
        #expect(UnitStateChange.between(nil, first, lastSession: first.sessionID)
            == UnitStateChange(foreground: .active))
    }
}
