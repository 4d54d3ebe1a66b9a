import ApsioCore
import Testing
@testable import ApsioTestSupport

/// What apsioctl does with its command line alone: no daemon, no state.
@Suite struct CommandLineTests {
    @Test(arguments: [
        [], ["frobnicate"], ["allow-live"], ["allow-live", "yes"], ["consent", "maybe"], ["data-saver", "on", "nginx"],
        ["apps", "extra"], ["status", "../etc"], ["--bogus", "status"], ["--state-dir"],
    ])
    func aBadCommandLineExitsTwo(_ arguments: [String]) async {
        let result = await CtlRun.run(arguments)
        #expect(result.status == 2, "\(arguments)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.hasPrefix("apsioctl: "))
        #expect(result.stderr.hasSuffix("; see 'apsioctl --help'\n"))
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: ["status", "watch", "apps", "allow-live", "consent", "data-saver", "reload", "version"])
    func everyCommandHasHelp(_ command: String) async {
        let result = await CtlRun.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Usage: apsioctl \(command)"))
        #expect(result.stderr.isEmpty)
    }

    @Test func theOverviewNamesEveryCommand() async {
        let result = await CtlRun.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Usage: apsioctl "))
        for command in ["status", "watch", "apps", "allow-live", "consent", "data-saver", "reload", "version"] {
            #expect(result.stdout.contains("\n  \(command) "), "\(command)")
        }
        let unknown = await CtlRun.run(["help", "frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "apsioctl: unknown command 'frobnicate'; see 'apsioctl --help'\n")
    }

    @Test func versionNeedsNoDaemon() async throws {
        let machine = try ApsioctlMachine()
        let result = await CtlRun.run(machine.options + ["--json", "version"])
        #expect(result.status == 0)
        #expect(result.json == .object(["ok": .bool(true), "apsioctl": .string(ApsioVersion.current), "apsiod": .null]))
        let human = await CtlRun.run(machine.options + ["version"])
        #expect(human.stdout == "apsioctl \(ApsioVersion.current)\napsiod is not running\n")
        // Packaging checks read exactly one line.
        let own = await CtlRun.run(machine.options + ["--version"])
        #expect(own.status == 0)
        #expect(own.stdout == "apsioctl \(ApsioVersion.current)\n")
    }
}
