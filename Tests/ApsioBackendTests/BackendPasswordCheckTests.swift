import ApsioBackend
import ApsioCore
import ApsioNet
import ApsioTestSupport
import Foundation
import Testing

/// A password check takes as long as the operator's iteration count makes it (half a second by
/// default, up to seconds). The built `apsio-backend` runs its checks off the threads that read
/// and answer requests (each connection's loop), so it answers everyone else while they run.
@Suite(.serialized) struct BackendPasswordCheckTests {
    @Test func passwordChecksInProgressHoldUpNoOtherRequest() async throws {
        let directory = try TemporaryDirectory("apsio-password-checks")
        // A hash no password matches, at the most iterations an account may have: each sign-in
        // is refused after a check of seconds.
        let hash = try #require(
            PasswordHash(text: "\(PBKDF2.maxIterations):" + String(repeating: "ab", count: 16) + ":" + String(repeating: "cd", count: 32)))
        let accounts = directory.path + "/accounts"
        try AccountsFile(accounts: [Account(user: "ann", role: .admin, password: hash)]).save(path: accounts)
        let instance = try await FleetBinaryTests.Fleet.launch(
            number: 0, directory: directory.path, accounts: accounts, redis: nil, interval: 30)
        defer { instance.child.signal(SIGKILL) }
        let port = instance.port
        let limit = BackendLimits.default.maxConcurrentPasswordChecks
        let signIn = JSONValue.object(["user": .string("ann"), "password": .string("ann-password")])

        // One sign-in more than may be checked at once, each on a connection of its own, as people
        // sign in: the first answer is the one refused as busy, once the others' checks all run.
        let (answers, answered) = AsyncStream<Int>.makeStream()
        for _ in 0...limit {
            Task { answered.yield((try? await BackendHTTPTests.Client(port: port).post("/api/login", signIn).status) ?? -1) }
        }
        var statuses = answers.makeAsyncIterator()
        #expect(await statuses.next() == 503)

        // Requests on new connections, more than the backend has loops, all answered meanwhile.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await BackendHTTPTests.Client(port: port).send(
                        .get("/v1/policy", headers: ["Apsio-App-Key": FleetBinaryTests.appKey])
                    ).status
                }
            }
            for try await status in group { #expect(status == 200) }
        }
        let busy = try await BackendHTTPTests.Client(port: port).post("/api/login", signIn)
        #expect(busy.status == 503, "the checks were still running")
        for _ in 0..<limit { #expect(await statuses.next() == 401) }
    }
}
