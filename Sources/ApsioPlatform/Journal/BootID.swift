/// The current boot's id, as the journal's `_BOOT_ID` and its cursors' `b=` spell it: 32 lowercase
/// hex digits, `/proc/sys/kernel/random/boot_id` without its dashes.
package enum BootID {
    /// nil when procfs does not say (a fixture tree without it), or says something else.
    package static func current(roots: SysfsRoots = .system) -> String? {
        guard let text = SmallFile.attribute(roots.proc("sys/kernel/random/boot_id")) else { return nil }
        let hex = text.lowercased().filter { $0 != "-" }
        guard hex.utf8.count == 32, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        return hex
    }
}
