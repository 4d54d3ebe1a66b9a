import Testing

@testable import ApsioAgent

@Suite struct DaemonOptionsTests {
    @Test func systemdDirectoriesAreTheDefaultsAndOptionsWin() throws {
        let fromSystemd = try DaemonOptions.parse([], environment: ["STATE_DIRECTORY": "/var/lib/apsio:/var/lib/other", "RUNTIME_DIRECTORY": "/run/apsio"])
        guard case .serve(let options) = fromSystemd else { Issue.record("expected serve"); return }
        #expect(options.stateDirectory == "/var/lib/apsio")
        #expect(options.runtimeDirectory == "/run/apsio")

        let given = try DaemonOptions.parse(
            ["--state-dir", "/tmp/s/", "--journal-dir", "/tmp/j", "--log-level", "debug", "--sysfs", "/tmp/sys"],
            environment: ["STATE_DIRECTORY": "/var/lib/apsio"])
        guard case .serve(let chosen) = given else { Issue.record("expected serve"); return }
        #expect(chosen.stateDirectory == "/tmp/s")
        #expect(chosen.journalDirectory == "/tmp/j")
        #expect(chosen.logLevel == .debug)
        #expect(chosen.sysfs == "/tmp/sys")
        #expect(chosen.configDirectory == "/etc/apsio")
    }

    @Test func badCommandLinesSayWhatToDo() {
        #expect(throws: DaemonOptions.UsageError(description: "unknown option '--bogus'; see 'apsiod --help'")) {
            try DaemonOptions.parse(["--bogus"], environment: [:])
        }
        #expect(throws: DaemonOptions.UsageError(description: "--config-dir needs a value; see 'apsiod --help'")) {
            try DaemonOptions.parse(["--config-dir"], environment: [:])
        }
        #expect(throws: DaemonOptions.UsageError(description: "--state-dir needs an absolute path, not 'state'")) {
            try DaemonOptions.parse(["--state-dir", "state"], environment: [:])
        }
        #expect(throws: DaemonOptions.UsageError(description: "--log-level takes debug, info, notice, warning or err, not 'loud'")) {
            try DaemonOptions.parse(["--log-level", "loud"], environment: [:])
        }
        #expect((try? DaemonOptions.parse(["--state-dir", "/s", "--help"], environment: [:])) == .help)
    }
}
