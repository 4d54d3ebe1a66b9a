import ApsioBackend
import ApsioCore
import ApsioNet
import ApsioTestSupport
import Foundation
import Testing

/// The built `apsio-backend`, in memory and as a fleet on a real `redis-server`: a person's rights
/// are the accounts file's as it stands, read again on SIGHUP, not what their sign-in said when it
/// began (16.7: only people allowed to change the project's settings send commands). A sign-in
/// outlives an instance's restart in Redis for hours; a demoted or removed admin must not.
@Suite struct BackendAccountsReloadTests {
    enum Store: String, CaseIterable, Sendable { case memory, redis }

    /// Each password hashed once: the file written again with the same password keeps its hash,
    /// as an operator's edit of a role does (a new hash is a password set again).
    static let annHash = PasswordHash(password: "ann-password", iterations: 1000)
    static let bobHash = PasswordHash(password: "bob-password", iterations: 1000)

    static func accounts(annRole: AccountRole, bob: Bool, annPassword: PasswordHash = annHash) -> AccountsFile {
        var people = [Account(user: "ann", role: annRole, password: annPassword)]
        if bob { people.append(Account(user: "bob", role: .admin, password: bobHash)) }
        return AccountsFile(accounts: people)
    }

    /// `count` instances of the built backend on `store` (one Redis for them all), reading the
    /// accounts file `accounts` wrote; the fixtures are kept alive by the value returned.
    static func launch(
        _ store: Store, count: Int, accounts: AccountsFile
    ) async throws -> (instances: [FleetBinaryTests.Fleet.Instance], file: String, kept: (RedisServerFixture?, TemporaryDirectory)) {
        let redis = store == .redis ? try RedisServerFixture() : nil
        let directory = try TemporaryDirectory("apsio-accounts")
        let file = directory.path + "/accounts"
        try accounts.save(path: file)
        var instances: [FleetBinaryTests.Fleet.Instance] = []
        for number in 0..<count {
            instances.append(try await FleetBinaryTests.Fleet.launch(
                number: number, directory: directory.path, accounts: file, redis: redis?.endpoint, interval: 30))
        }
        return (instances, file, (redis, directory))
    }

    /// Two instances on one Redis, or one in memory; ann and bob admins watching the device's session.
    @Test(arguments: Store.allCases)
    func aDemotedOrRemovedAdminSendsNoCommandOnceTheAccountsAreReadAgain(_ store: Store) async throws {
        let (instances, file, kept) = try await Self.launch(
            store, count: store == .redis ? 2 : 1, accounts: Self.accounts(annRole: .admin, bob: true))
        defer { withExtendedLifetime(kept) {} }
        let first = instances[0].client
        let last = instances[instances.count - 1].client
        let install = FleetBinaryTests.install

        let token = try #require(try await FleetBinaryTests.hello(first).body["device_token"]?.stringValue)
        let ann = try await first.signIn("ann", "ann-password")
        let bob = try await last.signIn("bob", "bob-password")
        #expect(try await last.api("POST", "/api/devices/\(install)/watch?app=demo", bearer: ann).status == 200)
        #expect(try await first.api("POST", "/api/devices/\(install)/watch?app=demo", bearer: bob).status == 200)
        #expect(try await FleetBinaryTests.hello(first, token: token).body["viewers"]?.numberValue == 2)
        func command(_ who: String, on client: BackendHTTPClient) async throws -> Int {
            try await client.api(
                "POST", "/api/devices/\(install)/commands?app=demo", bearer: who, body: .object(["name": .string("diagnostics")])
            ).status
        }
        #expect(try await command(ann, on: last) == 202)
        #expect(try await command(bob, on: first) == 202)

        // ann demoted to viewer, bob taken off; every instance told.
        try Self.accounts(annRole: .viewer, bob: false).save(path: file)
        for instance in instances { instance.child.signal(SIGHUP) }
        for instance in instances {
            try await poll("an instance reads its accounts again") { instance.child.count("accounts read again: 1 account(s)") >= 1 }
        }

        for client in [first, last] {
            #expect(try await command(ann, on: client) == 403, "a demoted admin's command, on every instance")
            let me = try await client.api("GET", "/api/me", bearer: ann)
            #expect(me.status == 200 && me.body["may_send_commands"]?.boolValue == false)
        }
        #expect(try await last.api("GET", "/api/me", bearer: bob).status == 401, "a removed person's sign-in ends")
        #expect(try await first.api("GET", "/api/devices", bearer: bob).status == 401)
        #expect(try await command(bob, on: first) == 401)
        let refused = try await first.post("/api/login", .object(["user": .string("bob"), "password": .string("bob-password")]))
        #expect(refused.status == 401, "nor can they sign in again")

        // A broken accounts file keeps the last good one.
        try "ann:admin:not-a-hash\n".write(toFile: file, atomically: true, encoding: .utf8)
        instances[0].child.signal(SIGHUP)
        try await poll("the broken file reported") { instances[0].child.stderr.contains("the last good accounts stay") }
        #expect(try await command(ann, on: first) == 403, "the last good accounts, not the broken file's")
        #expect(try await first.api("GET", "/api/me", bearer: ann).status == 200)
        for instance in instances { #expect(instance.child.process.isRunning) }
    }

    /// A password set again (a laptop lost with its sign-in on it) ends the sign-ins made with the
    /// old one, on every instance, and only theirs: bob, whose password stayed, goes on watching.
    @Test(arguments: Store.allCases)
    func aPasswordSetAgainEndsTheSignInsMadeWithTheOldOne(_ store: Store) async throws {
        let (instances, file, kept) = try await Self.launch(
            store, count: store == .redis ? 2 : 1, accounts: Self.accounts(annRole: .admin, bob: true))
        defer { withExtendedLifetime(kept) {} }
        let clients = instances.map(\.client)
        let install = FleetBinaryTests.install
        _ = try await FleetBinaryTests.hello(clients[0])
        let ann = try await clients[0].signIn("ann", "ann-password")
        let bob = try await clients[clients.count - 1].signIn("bob", "bob-password")
        for who in [ann, bob] {
            #expect(try await clients[0].api("POST", "/api/devices/\(install)/watch?app=demo", bearer: who).status == 200)
        }

        try Self.accounts(annRole: .admin, bob: true, annPassword: PasswordHash(password: "a-new-password", iterations: 1000)).save(path: file)
        for instance in instances { instance.child.signal(SIGHUP) }
        for instance in instances {
            try await poll("an instance reads its accounts again") { instance.child.count("accounts read again: 2 account(s)") >= 1 }
        }

        for client in clients {
            #expect(try await client.api("GET", "/api/me", bearer: ann).status == 401, "the old password's sign-in ends")
            let me = try await client.api("GET", "/api/me", bearer: bob)
            #expect(me.status == 200 && me.body["user"]?.stringValue == "bob", "another person's sign-in stands")
        }
        let old = try await clients[0].post("/api/login", .object(["user": .string("ann"), "password": .string("ann-password")]))
        #expect(old.status == 401, "the old password no longer signs in")
        let again = try await clients[clients.count - 1].signIn("ann", "a-new-password")
        #expect(try await clients[0].api("GET", "/api/me", bearer: again).status == 200, "the new one does, on any instance")
    }

    /// A `frames` or `results` body that is not JSON, sent with the current token, is a body the
    /// backend cannot read (400), not a token it refuses (401, which ends the device's session):
    /// in memory and in the fleet alike.
    @Test(arguments: Store.allCases)
    func aBodyThatIsNotJSONIsAnswered400AndTheTokenStillHolds(_ store: Store) async throws {
        let (instances, _, kept) = try await Self.launch(store, count: 1, accounts: Self.accounts(annRole: .admin, bob: false))
        defer { withExtendedLifetime(kept) {} }
        let client = instances[0].client
        let token = try #require(try await FleetBinaryTests.hello(client).body["device_token"]?.stringValue)
        let ann = try await client.signIn("ann", "ann-password")
        #expect(try await client.api("POST", "/api/devices/\(FleetBinaryTests.install)/watch?app=demo", bearer: ann).status == 200)
        #expect(try await FleetBinaryTests.hello(client, token: token).body["viewers"]?.numberValue == 1)

        for route in ["/v1/live/frames", "/v1/live/results"] {
            let answer = try await client.send(HTTPRequest(
                method: "POST", path: route,
                headers: ["Apsio-App-Key": FleetBinaryTests.appKey, "Apsio-Live-Token": token, "Content-Type": "application/json"],
                body: Array("{\"install\": not json".utf8)))
            #expect(answer.status == 400, "\(route): \(answer.status) \(answer.body)")
        }
        #expect(try await FleetBinaryTests.frames(client, token: token, line: "still live") == 200, "the token still holds")
    }
}
