import ApsioCore
import ApsioNet
import Foundation
import Testing
import ApsioState
import ApsioTestSupport

/// No store writes a tester proof, a device token or an app key: the daemon holds all three in
/// memory while it writes its state, and none may reach a file.
@Suite struct StateSecretsTests {
    @Test func nothingUnderTheStateDirectoryHoldsASecret() throws {
        let dir = try TemporaryDirectory()
        let state = AgentState(root: dir.path)
        let app = try AppName("com.example.nginx")
        let hashing = OpenSSLSHA256()

        // What the daemon has in memory for this app.
        let appKey = "apsio_app_4f2c9d1e8b7a6c5d4e3f2a1b0c9d8e7f"
        let installationID = try state.apps.installationID(for: app)
        let proof = TesterProof(entryID: "qa-box-7", installationID: installationID, hashing: hashing)
        let token = try #require(DeviceToken(String(repeating: "7e", count: 32)))
        let secrets = [appKey, proof.secretHex, token.secretHex]

        // Everything the stores can write, fed with what the daemon would feed them.
        let policy = """
            {"refresh_s":300,"kill_switch":false,"live":{"origin":"https://live.example.com",\
            "testers":[{"id":"qa-box-7","match":"\(proof.match(hashing: hashing))","expires_at":1798761600}]}}
            """
        try state.apps.saveLastPolicy(Array(policy.utf8), for: app)
        try state.apps.saveLastPolicyETag(PolicyETag(#""5f2c9a""#), for: app)
        try state.apps.saveDayBytes(DayBytes(day: 20_454, bytes: 123_456), for: app)
        try state.settings.update {
            $0.setAllowsLive(true, for: app)
            $0.setConsentOverride(.granted, for: app)
            $0.dataSaver = true
        }
        let cursors = CursorStore(layout: state.layout)
        cursors.update(SavedCursor("s=0f1e;i=2a;b=3c4d;m=5e;t=6f;x=70", unit: "nginx.service"), for: app)
        try cursors.flush(now: .origin)
        let queue = try state.openQueue(for: app)
        let uid = Hex.lowercase(Array(hashing.sha256(Array(installationID.utf8)).prefix(16))) + ":s=0f1e"
        let record = LogRecord(
            timeUnixNano: 1, severity: JournalSeverity(priority: 3), body: "worker 3 exited",
            attributes: [.string("log.record.uid", uid), .string("app.installation.id", installationID)])
        try queue.append(LogRecordCodec.encode(record), at: 1_767_225_600_000)
        queue.close()

        let files = try dir.files().filter { !isDirectory(dir.path + "/" + $0) }
        #expect(files.contains("settings.json"))
        #expect(files.contains("apps/com.example.nginx/policy.json"))
        #expect(files.contains("apps/com.example.nginx/policy.etag"))
        #expect(files.contains("apps/com.example.nginx/installation-id"))
        #expect(files.contains { $0.hasPrefix("apps/com.example.nginx/queue/") && $0.hasSuffix(".seg") })
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.path + "/" + file))
            for secret in secrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds a secret")
                #expect(bytes.range(of: Data(secret.uppercased().utf8)) == nil, "\(file) holds a secret")
            }
        }
    }

    func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}
