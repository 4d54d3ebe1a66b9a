package import ApsioCore
internal import ApsioPOSIX

/// The Resource's facts about the machine (2.2, LINUX-PROFILE §2) and a unit's main executable
/// (2.1). Reads only what describes the machine's kind, never what tells one machine from another:
/// not `/etc/machine-id`, not DMI `product_uuid`, `product_serial` or `board_serial`, not a MAC address.
package struct ResourceFactsReader: Sendable {
    package var roots: SysfsRoots
    /// os-release's two places, in the order os-release(5) says to look.
    package var osReleasePaths: [String]
    package var limits: ReadLimits

    package init(
        roots: SysfsRoots = .system, osReleasePaths: [String] = ["/etc/os-release", "/usr/lib/os-release"],
        limits: ReadLimits = .standard
    ) {
        self.roots = roots
        self.osReleasePaths = osReleasePaths
        self.limits = limits
    }

    package func machine() -> ResourceFacts {
        // With no file readable, the name and version still come from OSRelease's defaults: spec 2.2
        // says `os.name` and `os.version` MUST be set.
        let release = osReleasePaths.lazy.compactMap { try? SmallFile.text($0, limit: self.limits.smallFileBytes) }
            .first.map(OSRelease.init(parsing:)) ?? OSRelease()
        var facts = ResourceFacts(
            osName: release.name, osVersion: release.version,
            osBuildID: SmallFile.attribute(roots.proc("sys/kernel/osrelease")) ?? Self.unameRelease(),
            hostName: SmallFile.attribute(roots.proc("sys/kernel/hostname")).flatMap { $0.isEmpty ? nil : $0 })
        let vendor = dmi("sys_vendor"), product = dmi("product_name")
        if vendor != nil || product != nil {
            facts.deviceManufacturer = vendor
            facts.deviceModelIdentifier = product
        } else {
            // Device-tree machines (Raspberry Pi, most ARM boards): `model` names the board, and the
            // first `compatible` entry starts with its vendor's prefix (`raspberrypi,4-model-b`).
            let base = roots.sys("firmware/devicetree/base")
            facts.deviceModelIdentifier = SmallFile.attribute(join(base, "model")).flatMap { $0.isEmpty ? nil : $0 }
            facts.deviceManufacturer = (try? SmallFile.bytes(join(base, "compatible"), limit: limits.smallFileBytes))
                .flatMap { bytes in bytes.split(separator: 0).first }
                .flatMap { first in first.split(separator: UInt8(ascii: ",")).first }
                .map { String(decoding: $0, as: UTF8.self) }
                .flatMap { $0.isEmpty ? nil : $0 }
        }
        return facts
    }

    /// The build-id, size and owning package of a unit's main executable (its `ExecStart=` path).
    package func executable(path: String, dpkg: DpkgDatabase?) -> ExecutableFacts {
        let info = (try? FileSystem.status(path)) ?? nil
        let size = info?.kind == .regular ? info?.size : nil
        return ExecutableFacts(
            path: path, gnuBuildID: (try? ELFBuildID.read(path: path, limits: limits)) ?? nil,
            package: dpkg?.package(owning: path), fileSize: size)
    }

    /// DMI strings firmware vendors leave unfilled say nothing about the machine.
    private static let placeholders: Set<String> = [
        "to be filled by o.e.m.", "default string", "system manufacturer", "system product name", "not applicable",
        "not specified", "none", "o.e.m.", "oem", "unknown",
    ]

    private func dmi(_ name: String) -> String? {
        guard let value = SmallFile.attribute(roots.sys("class/dmi/id/\(name)")), !value.isEmpty,
            !Self.placeholders.contains(value.lowercased())
        else { return nil }
        return value
    }

    private static func unameRelease() -> String? {
        Kernel.release()
    }
}
