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
        // A hash no password matches, at 2 million iterations (three times the default): each
        // sign-in is refused after a check of about a second, far longer than a policy fetch,
        // and not so long that the checks weigh on the other suites running beside this one.
        let hash = try #require(
            PasswordHash(text: "2000000:" + String(repeating: "ab", count: 16) + ":" + String(repeating: "cd", count: 32)))
        let accounts = directory.path + "/accounts"
        try AccountsFile(accounts: [Account(user: "ann", role: .admin, password: hash)]).save(path: accounts)
        let instance = try await FleetBinaryTests.Fleet.launch(
            number: 0, directory: directory.path, accounts: accounts, redis: nil, interval: 30)
        defer { instance.child.signal(SIGKILL) }
        let limit = BackendLimits.default.maxConcurrentPasswordChecks

        // The clients are a process of their own: this test process shares its threads with
        // suites that block them, and its requests would wait for those, not for the backend.
        // One sign-in more than may be checked at once, each on a connection of its own, as people
        // sign in: the first answer is the one refused as busy, once the others' checks all run.
        // Then eight policy fetches on new connections, and one more sign-in.
        let script = """
            import http.client, json, queue, sys, threading
            port, key, limit = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
            def ask(method, path, body=None, headers={}):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                connection.request(method, path, body, headers)
                return connection.getresponse().status
            def sign_in():
                return ask("POST", "/api/login", json.dumps({"user": "ann", "password": "ann-password"}), {"Content-Type": "application/json"})
            answers = queue.Queue()
            for _ in range(limit + 1):
                threading.Thread(target=lambda: answers.put(sign_in()), daemon=True).start()
            first = answers.get()
            policies = [None] * 8
            def fetch(index):
                policies[index] = ask("GET", "/v1/policy", headers={"Apsio-App-Key": key})
            fetches = [threading.Thread(target=fetch, args=(index,)) for index in range(8)]
            for fetch_thread in fetches: fetch_thread.start()
            for fetch_thread in fetches: fetch_thread.join()
            probe = sign_in()
            rest = sorted(answers.get() for _ in range(limit))
            print(json.dumps({"first": first, "policies": policies, "probe": probe, "rest": rest}))
            """
        let client = try BackendBinaryTests.Child(
            binary: "/usr/bin/python3", arguments: ["-c", script, String(instance.port), FleetBinaryTests.appKey, String(limit)],
            directory: directory.path)
        try await poll("the clients finished", seconds: 600) { !client.process.isRunning }
        let seen = json(Array(client.stdout.utf8))
        #expect(seen["first"]?.numberValue == 503, "\(client.stdout) \(client.stderr)")
        // Answered while every check ran: the sign-in after them was still refused as busy.
        #expect(seen["policies"]?.arrayValue?.map(\.numberValue) == Array(repeating: 200, count: 8))
        #expect(seen["probe"]?.numberValue == 503, "the checks were still running")
        #expect(seen["rest"]?.arrayValue?.map(\.numberValue) == Array(repeating: 401, count: limit))
    }
}
