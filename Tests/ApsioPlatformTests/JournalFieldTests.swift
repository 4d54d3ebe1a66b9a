@testable import ApsioPlatform
@testable import ApsioTestSupport
import Testing

/// Which fields may ever leave the machine, decided from the raw name bytes.
@Suite struct JournalFieldTests {
    func kind(_ name: String) -> JournalField.Kind {
        Array(name.utf8).withUnsafeBytes { JournalField.classify($0) }
    }

    @Test func knownFieldsAreRecognised() {
        #expect(kind("MESSAGE") == .known(.message))
        #expect(kind("_SYSTEMD_UNIT") == .known(.systemdUnit))
        #expect(kind("COREDUMP_SIGNAL_NAME") == .known(.coredumpSignalName))
    }

    @Test func trustedFieldsNotMappedAreNeverForwarded() {
        for name in ["_CMDLINE", "_MACHINE_ID", "_BOOT_ID", "_HOSTNAME", "_AUDIT_LOGINUID", "_CAP_EFFECTIVE", "__CURSOR"] {
            #expect(kind(name) == .dropped, "\(name)")
        }
    }

    @Test func coredumpFactsOutsideTheListAreNeverForwarded() {
        for name in ["COREDUMP_ENVIRON", "COREDUMP_CMDLINE", "COREDUMP_PROC_MAPS", "COREDUMP", "COREDUMP_OPEN_FDS"] {
            #expect(kind(name) == .dropped, "\(name)")
        }
    }

    @Test func appFieldsAreForwardedOnlyWithJournaldsNameRules() {
        #expect(kind("REQUEST_ID") == .user)
        #expect(kind("X2") == .user)
        #expect(kind("request_id") == .dropped)
        #expect(kind("2FAST") == .dropped)
        #expect(kind("A-B") == .dropped)
        #expect(kind("") == .dropped)
        #expect(kind(String(repeating: "A", count: 65)) == .dropped)
        #expect(kind("SYSLOG_RAW") == .dropped)
    }
}

extension JournalFieldTests {
    @Test func aNameFollowedByItsValueIsReadTheSameAsTheNameAlone() {
        for field in ["_PID=42", "MESSAGE=hello world", "_SYSTEMD_INVOCATION_ID=0f1e", "PRIORITYX=1", "TID=7", "COREDUMP=core"] {
            let bytes = Array(field.utf8)
            let nameLength = bytes.firstIndex(of: UInt8(ascii: "="))!
            let inField = bytes.withUnsafeBytes { JournalField.classify(UnsafeRawBufferPointer(rebasing: $0[..<nameLength]), in: $0) }
            #expect(inField == kind(String(field.prefix(nameLength))), "\(field)")
        }
        #expect(kind("PRIORITYX") == .user)
    }

    @Test func everyKnownFieldHasABitOfItsOwn() {
        #expect(JournalField.allCases.count <= 64)
    }
}
