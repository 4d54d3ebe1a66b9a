import ApsioControl
import Testing

/// The control socket's admission rule (docs/control.md, "Connections"), on its own: who gets a
/// place, and whose place is taken when none is left.
@Suite struct ControlAdmissionTests {
    static let root: UInt32 = 0
    static let admin: UInt32 = 1001
    static let mallory: UInt32 = 2000
    static let alice: UInt32 = 2001
    static let bob: UInt32 = 2002

    /// 10 places, 2 kept for the operators, 3 for any other user.
    static func admission(total: Int = 10, reserve: Int = 2, perUser: Int = 3, maxLettingGo: Int = 16) -> ControlAdmission {
        ControlAdmission(limits: .init(total: total, reservedForOperators: reserve, perUser: perUser, maxLettingGo: maxLettingGo))
    }

    /// Admits one connection of `user` and returns its id, failing the test when it is refused.
    static func admitted(
        _ admission: inout ControlAdmission, _ user: UInt32, operator isOperator: Bool = false, _ activity: ControlAdmission.Activity = .watching
    ) -> ControlAdmission.ID? {
        guard case .admit(let id, _) = admission.arrive(user: user, isOperator: isOperator) else {
            Issue.record("user \(user) was refused")
            return nil
        }
        admission.set(id, activity)
        return id
    }

    @Test func aUserAtTheirCapGivesUpTheirOwnOldestRatherThanBeingRefused() throws {
        var admission = Self.admission()
        let first = try #require(Self.admitted(&admission, Self.mallory))
        _ = Self.admitted(&admission, Self.mallory, .waiting)
        _ = Self.admitted(&admission, Self.mallory)
        let alice = try #require(Self.admitted(&admission, Self.alice))

        guard case .admit(_, let lettingGo) = admission.arrive(user: Self.mallory, isOperator: false) else {
            Issue.record("the newcomer was refused")
            return
        }
        #expect(lettingGo == first)
        #expect(admission.count(of: Self.mallory) == 3)
        #expect(admission.count(of: Self.alice) == 1, "nobody else's place was taken")
        #expect(lettingGo != alice)
    }

    /// Half a line and then nothing holds a place as a watch does, and gives it up the same way.
    @Test func aConnectionWaitingForItsRequestIsLetGoLikeAWatch() throws {
        var admission = Self.admission(perUser: 2)
        let idle = try #require(Self.admitted(&admission, Self.mallory, .waiting))
        _ = Self.admitted(&admission, Self.mallory, .watching)
        #expect(admission.arrive(user: Self.mallory, isOperator: false).lettingGo == idle)
    }

    @Test func aRequestBeingAnsweredIsNeverCutOff() throws {
        var admission = Self.admission(perUser: 2)
        _ = Self.admitted(&admission, Self.mallory, .answering)
        _ = Self.admitted(&admission, Self.mallory, .answering)
        #expect(admission.arrive(user: Self.mallory, isOperator: false) == .refuse)
        #expect(admission.count(of: Self.mallory) == 2)
    }

    /// Other users together never take the operators' reserve, however many of them come.
    @Test func theOperatorsReserveIsKeptFromEveryoneElse() throws {
        var admission = Self.admission(total: 6, reserve: 2, perUser: 2)
        for user in UInt32(2000)..<2010 {
            _ = admission.arrive(user: user, isOperator: false)
            _ = admission.arrive(user: user, isOperator: false)
            #expect(admission.count <= 4)
        }
        guard case .admit(_, let lettingGo) = admission.arrive(user: Self.root, isOperator: true) else {
            Issue.record("root was refused")
            return
        }
        #expect(lettingGo == nil, "root took a reserved place, nobody's")
        let admin = admission.arrive(user: Self.admin, isOperator: true)
        #expect(admin.admitted != nil && admin.lettingGo == nil)
    }

    /// When the other users' places are full, a newcomer takes a place from whoever holds the most.
    @Test func aNewUserTakesAPlaceFromTheOneHoldingTheMost() throws {
        var admission = Self.admission(total: 6, reserve: 2, perUser: 4)
        let oldest = try #require(Self.admitted(&admission, Self.mallory))
        for _ in 0..<3 { _ = Self.admitted(&admission, Self.mallory) }
        #expect(admission.arrive(user: Self.alice, isOperator: false).lettingGo == oldest)
        #expect(admission.count(of: Self.mallory) == 3)
        _ = Self.admitted(&admission, Self.alice)
        // Mallory 2, Alice 2: taking another of Mallory's would be no fairer.
        #expect(admission.arrive(user: Self.alice, isOperator: false) == .refuse)
    }

    @Test func whenEveryPlaceIsTakenAnOperatorTakesTheOldestOtherUsersPlace() throws {
        var admission = Self.admission(total: 4, reserve: 1, perUser: 3)
        let mallorysOldest = try #require(Self.admitted(&admission, Self.mallory))
        _ = Self.admitted(&admission, Self.mallory)
        _ = Self.admitted(&admission, Self.alice)
        _ = Self.admitted(&admission, Self.admin, operator: true)
        #expect(admission.count == 4)

        guard case .admit(_, let lettingGo) = admission.arrive(user: Self.root, isOperator: true) else {
            Issue.record("root was refused")
            return
        }
        #expect(lettingGo == mallorysOldest)
    }

    @Test func whenOnlyOperatorsHoldPlacesTheOneHoldingTheMostGivesWay() throws {
        var admission = Self.admission(total: 3, reserve: 1, perUser: 1)
        _ = Self.admitted(&admission, Self.root, operator: true)
        let adminsOldest = try #require(Self.admitted(&admission, Self.admin, operator: true))
        _ = Self.admitted(&admission, Self.admin, operator: true)
        #expect(admission.arrive(user: Self.root, isOperator: true).lettingGo == adminsOldest)
    }

    @Test func anotherUserIsRefusedWhenOperatorsHoldMoreThanTheirReserve() throws {
        var admission = Self.admission(total: 3, reserve: 1, perUser: 3)
        _ = Self.admitted(&admission, Self.mallory)
        _ = Self.admitted(&admission, Self.root, operator: true)
        _ = Self.admitted(&admission, Self.root, operator: true)
        #expect(admission.arrive(user: Self.alice, isOperator: false) == .refuse)
    }

    /// A connection let go is no longer counted nor chosen again; what it does until it is gone
    /// changes nothing, and its leaving frees nothing twice.
    @Test func aConnectionLetGoCountsOnlyAgainstTheLettingGoBound() throws {
        var admission = Self.admission(perUser: 1)
        let first = try #require(Self.admitted(&admission, Self.mallory))
        let second = try #require(admission.arrive(user: Self.mallory, isOperator: false).admitted)
        #expect(admission.count == 1)
        #expect(admission.lettingGoCount == 1)
        admission.set(first, .watching)
        #expect(admission.arrive(user: Self.mallory, isOperator: false).lettingGo == second)
        admission.left(first)
        admission.left(first)
        #expect(admission.lettingGoCount == 1)
        #expect(admission.count == 1)
    }

    /// Newcomers faster than the server closes what it let go: past the bound they are refused.
    @Test func lettingGoIsBounded() throws {
        var admission = Self.admission(perUser: 1, maxLettingGo: 2)
        _ = Self.admitted(&admission, Self.mallory)
        #expect(admission.arrive(user: Self.mallory, isOperator: false).lettingGo != nil)
        #expect(admission.arrive(user: Self.mallory, isOperator: false).lettingGo != nil)
        #expect(admission.arrive(user: Self.mallory, isOperator: false) == .refuse)
        // An operator is never held to it.
        #expect(admission.arrive(user: Self.root, isOperator: true).admitted != nil)
    }

    @Test func aPlaceLeftIsFreeAgain() throws {
        var admission = Self.admission(total: 2, reserve: 1, perUser: 2)
        let only = try #require(Self.admitted(&admission, Self.mallory, .answering))
        #expect(admission.arrive(user: Self.alice, isOperator: false) == .refuse)
        admission.left(only)
        #expect(admission.arrive(user: Self.alice, isOperator: false).admitted != nil)
    }
}

extension ControlAdmission.Decision {
    var admitted: ControlAdmission.ID? {
        guard case .admit(let id, _) = self else { return nil }
        return id
    }

    var lettingGo: ControlAdmission.ID? {
        guard case .admit(_, let lettingGo) = self else { return nil }
        return lettingGo
    }
}
