import ApsioAgent
import ApsioCore
import Foundation
import Testing

@Suite struct CursorStoreTests {
    let nginx = try! AppName("nginx")
    let cron = try! AppName("cron")

    func at(_ seconds: Int) -> MonotonicInstant { MonotonicInstant(.seconds(seconds)) }

    func onDisk(_ layout: StateLayout, _ app: AppName) -> String? {
        try? String(contentsOfFile: layout.cursorFile(app), encoding: .utf8)
    }

    @Test func cursorsAreWrittenAtMostOnceAnInterval() throws {
        let dir = try TestDirectory()
        let layout = StateLayout(root: dir.path)
        let store = CursorStore(layout: layout, minimumInterval: .seconds(10))
        #expect(try store.cursor(for: nginx) == nil)
        #expect(try store.flushIfDue(now: at(0)) == false)  // nothing to write

        store.update("s=1;i=1", for: nginx)
        #expect(try store.flushIfDue(now: at(0)))
        #expect(onDisk(layout, nginx) == "s=1;i=1\n")

        // Many updates within the interval: memory only, the newest is what reads see.
        for index in 2...50 { store.update("s=1;i=\(index)", for: nginx) }
        store.update("s=9;i=1", for: cron)
        #expect(try store.cursor(for: nginx) == "s=1;i=50")
        #expect(store.nextWriteDue == at(10))
        #expect(try store.flushIfDue(now: at(9)) == false)
        #expect(onDisk(layout, nginx) == "s=1;i=1\n")
        #expect(onDisk(layout, cron) == nil)

        #expect(try store.flushIfDue(now: at(10)))
        #expect(onDisk(layout, nginx) == "s=1;i=50\n")
        #expect(onDisk(layout, cron) == "s=9;i=1\n")
        #expect(store.hasPendingWrites == false)
        #expect(store.nextWriteDue == nil)
    }

    @Test func flushAtShutdownWritesWhateverIsPendingAndANewStoreReadsIt() throws {
        let dir = try TestDirectory()
        let layout = StateLayout(root: dir.path)
        let store = CursorStore(layout: layout, minimumInterval: .seconds(10))
        store.update("s=1;i=1", for: nginx)
        try store.flushIfDue(now: at(100))
        store.update("s=1;i=2", for: nginx)
        try store.flush(now: at(101))
        #expect(try CursorStore(layout: layout).cursor(for: nginx) == "s=1;i=2")
        #expect(try dir.mode(of: "apps/nginx/cursor") == 0o640)
    }

    @Test func aCursorFileThatIsNotACursorIsReportedNotUsed() throws {
        let dir = try TestDirectory()
        let layout = StateLayout(root: dir.path)
        try layout.makeAppDirectory(nginx)
        try Data([0x73, 0x00, 0x0A]).write(to: URL(fileURLWithPath: layout.cursorFile(nginx)))
        #expect(throws: StateStoreError.self) { try CursorStore(layout: layout).cursor(for: nginx) }
    }
}
