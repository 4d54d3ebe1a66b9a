"""An OTLP/HTTP protobuf ExportLogsServiceRequest read into the dict the JSON mapping gives, for the
fields the checker looks at: the Resource's attributes, each record's body, severity number and
attributes. Enough of protobuf's wire format for what apsiod writes (opentelemetry-proto's field
numbers); anything it cannot read raises ValueError, which the backend answers 400."""
import struct


def _varint(data, index):
    value = shift = 0
    while True:
        if index >= len(data) or shift > 63:
            raise ValueError("a varint runs past the end")
        byte = data[index]
        index += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, index
        shift += 7


def _fields(data):
    """(number, wire type, value) of every field: an int, or the bytes of a length-delimited one."""
    index = 0
    while index < len(data):
        key, index = _varint(data, index)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, index = _varint(data, index)
        elif wire == 1:
            if index + 8 > len(data):
                raise ValueError("a fixed64 runs past the end")
            value, index = struct.unpack_from("<Q", data, index)[0], index + 8
        elif wire == 2:
            length, index = _varint(data, index)
            if index + length > len(data):
                raise ValueError("a field runs past the end")
            value, index = data[index:index + length], index + length
        elif wire == 5:
            if index + 4 > len(data):
                raise ValueError("a fixed32 runs past the end")
            value, index = struct.unpack_from("<I", data, index)[0], index + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield number, wire, value


def _any_value(data):
    for number, wire, value in _fields(data):
        if number == 1 and wire == 2:
            return {"stringValue": value.decode("utf-8")}
        if number == 2 and wire == 0:
            return {"boolValue": bool(value)}
        if number == 3 and wire == 0:
            return {"intValue": str(value - (1 << 64) if value >= 1 << 63 else value)}
        if number == 4 and wire == 1:
            return {"doubleValue": struct.unpack("<d", struct.pack("<Q", value))[0]}
    return {}


def _attributes(fields, number):
    out = []
    for field_number, wire, value in fields:
        if field_number != number or wire != 2:
            continue
        pair = {"key": "", "value": {}}
        for inner, inner_wire, inner_value in _fields(value):
            if inner == 1 and inner_wire == 2:
                pair["key"] = inner_value.decode("utf-8")
            elif inner == 2 and inner_wire == 2:
                pair["value"] = _any_value(inner_value)
        out.append(pair)
    return out


def request_to_json(data):
    """The request as `json.loads` would give its JSON mapping."""
    groups = []
    for number, wire, group in _fields(data):
        if number != 1 or wire != 2:
            continue
        resource_fields = []
        scopes = []
        for inner, inner_wire, value in _fields(group):
            if inner == 1 and inner_wire == 2:
                resource_fields = list(_fields(value))
            elif inner == 2 and inner_wire == 2:
                records = []
                for record_number, record_wire, record in _fields(value):
                    if record_number != 2 or record_wire != 2:
                        continue
                    fields = list(_fields(record))
                    entry = {"severityNumber": 0, "attributes": _attributes(fields, 6)}
                    for field_number, field_wire, field_value in fields:
                        if field_number == 2 and field_wire == 0:
                            entry["severityNumber"] = field_value
                        elif field_number == 5 and field_wire == 2:
                            entry["body"] = _any_value(field_value)
                    records.append(entry)
                scopes.append({"logRecords": records})
        groups.append({"resource": {"attributes": _attributes(resource_fields, 1)}, "scopeLogs": scopes})
    return {"resourceLogs": groups}
