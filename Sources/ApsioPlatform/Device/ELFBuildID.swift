internal import ApsioPOSIX
internal import Glibc

/// The GNU build-id of an ELF file (`NT_GNU_BUILD_ID` in a `.note.gnu.build-id` note), in
/// lowercase hex as `readelf -n`, `debuginfod` and `eu-unstrip` print it: the key of the file's
/// symbols, so crashes of the unit can be symbolised.
package enum ELFBuildID {
    /// The build-id of the ELF file at `path`; `nil` for an ELF file without one. Throws when the
    /// file cannot be read or is not ELF.
    package static func read(path: String, limits: ReadLimits = .standard) throws(PlatformFileError) -> String? {
        let fd = try SmallFile.open(path, flags: O_RDONLY)
        defer { fd.close() }
        let file = ELFFile(fd: fd, path: path)
        let header = try file.bytes(at: 0, count: 64)
        guard header.count >= 52, header[0] == 0x7F, header[1] == 0x45, header[2] == 0x4C, header[3] == 0x46,
            header[4] == 1 || header[4] == 2, header[5] == 1 || header[5] == 2
        else { throw PlatformFileError(path: path, reason: .malformed("not an ELF file")) }
        let wide = header[4] == 2
        let order = Endian(bigEndian: header[5] == 2)
        guard !wide || header.count >= 64 else { throw PlatformFileError(path: path, reason: .malformed("short ELF header")) }

        // Program headers first: they survive `strip --strip-all`, which may drop section headers.
        let phoff = wide ? order.u64(header, 0x20) : UInt64(order.u32(header, 0x1C))
        let phentsize = Int(order.u16(header, wide ? 0x36 : 0x2A))
        let phnum = Int(order.u16(header, wide ? 0x38 : 0x2C))
        var budget = limits.maxELFNoteBytes
        if phnum > 0, phentsize >= (wide ? 56 : 32), phnum <= 4096 {
            let table = try file.bytes(at: phoff, count: phnum * phentsize)
            for index in 0..<phnum where (index + 1) * phentsize <= table.count {
                let base = index * phentsize
                guard order.u32(table, base) == 4 else { continue }  // PT_NOTE
                let offset = wide ? order.u64(table, base + 8) : UInt64(order.u32(table, base + 4))
                let size = wide ? order.u64(table, base + 32) : UInt64(order.u32(table, base + 16))
                let align = wide ? order.u64(table, base + 48) : UInt64(order.u32(table, base + 28))
                if let id = try notes(file, offset: offset, size: size, align: align, order: order, budget: &budget) {
                    return id
                }
            }
        }
        let shoff = wide ? order.u64(header, 0x28) : UInt64(order.u32(header, 0x20))
        let shentsize = Int(order.u16(header, wide ? 0x3A : 0x2E))
        let shnum = Int(order.u16(header, wide ? 0x3C : 0x30))
        if shoff > 0, shnum > 0, shentsize >= (wide ? 64 : 40), shnum <= 65535 {
            let table = try file.bytes(at: shoff, count: shnum * shentsize)
            for index in 0..<shnum where (index + 1) * shentsize <= table.count {
                let base = index * shentsize
                guard order.u32(table, base + 4) == 7 else { continue }  // SHT_NOTE
                let offset = wide ? order.u64(table, base + 24) : UInt64(order.u32(table, base + 16))
                let size = wide ? order.u64(table, base + 32) : UInt64(order.u32(table, base + 20))
                let align = wide ? order.u64(table, base + 48) : UInt64(order.u32(table, base + 32))
                if let id = try notes(file, offset: offset, size: size, align: align, order: order, budget: &budget) {
                    return id
                }
            }
        }
        return nil
    }

    private static func notes(
        _ file: ELFFile, offset: UInt64, size: UInt64, align: UInt64, order: Endian, budget: inout Int
    ) throws(PlatformFileError) -> String? {
        guard size > 0, size <= UInt64(budget) else { return nil }
        budget -= Int(size)
        return buildID(inNotes: try file.bytes(at: offset, count: Int(size)), align: align == 8 ? 8 : 4, order: order)
    }

    /// Walks `Elf_Nhdr` records (`namesz`, `descsz`, `type`, name, desc, each padded to `align`)
    /// for the note named `GNU` of type 3.
    static func buildID(inNotes notes: [UInt8], align: Int, order: Endian) -> String? {
        func padded(_ n: Int) -> Int { (n + align - 1) & ~(align - 1) }
        var offset = 0
        while offset + 12 <= notes.count {
            let nameSize = Int(order.u32(notes, offset))
            let descSize = Int(order.u32(notes, offset + 4))
            let type = order.u32(notes, offset + 8)
            let nameStart = offset + 12
            let descStart = nameStart + padded(nameSize)
            guard nameSize <= notes.count, descSize <= notes.count, descStart + descSize <= notes.count else { return nil }
            if type == 3, nameSize == 4, Array(notes[nameStart..<(nameStart + 4)]) == [0x47, 0x4E, 0x55, 0], descSize > 0 {
                return notes[descStart..<(descStart + descSize)].map { byte in
                    let digits = Array("0123456789abcdef")
                    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
                }.joined()
            }
            offset = descStart + padded(descSize)
        }
        return nil
    }

    struct Endian {
        var bigEndian: Bool
        func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(truncatingIfNeeded: value(bytes, at, 2)) }
        func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(truncatingIfNeeded: value(bytes, at, 4)) }
        func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 { value(bytes, at, 8) }
        private func value(_ bytes: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
            guard at >= 0, at + width <= bytes.count else { return 0 }
            var out: UInt64 = 0
            for index in 0..<width {
                let byte = UInt64(bytes[at + (bigEndian ? index : width - 1 - index)])
                out = out << 8 | byte
            }
            return out
        }
    }

    private struct ELFFile {
        let fd: OwnedFileDescriptor
        let path: String

        /// Up to `count` bytes at `offset`; fewer at the end of the file.
        func bytes(at offset: UInt64, count: Int) throws(PlatformFileError) -> [UInt8] {
            guard offset <= UInt64(Int64.max) / 2, count > 0 else { return [] }
            do {
                return try FileSystem.read(fd, path: path, at: Int(offset), count: count)
            } catch {
                throw PlatformFileError(path: path, error)
            }
        }
    }
}
