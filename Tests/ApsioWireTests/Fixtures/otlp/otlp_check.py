#!/usr/bin/env python3
"""Parses an OTLP/HTTP body as the OpenTelemetry protobuf definitions read it, strictly.

    otlp_check.py [--protobuf] REQUEST SUMMARY.json

REQUEST is an ExportLogsServiceRequest in the protobuf JSON mapping, parsed with
google.protobuf.json_format.Parse and ignore_unknown_fields=False: a field name the schema does
not have, a value of the wrong type, or malformed JSON fails. With --protobuf it is the binary
wire format, parsed with ParseFromString: a field the schema does not have (kept as an unknown
field), a wire type that does not match the schema, or trailing bytes fail. SUMMARY.json then receives what
the message holds, field by field, in a form the Swift test compares with what it encoded:
each attribute value as [type, text], 64-bit integers and doubles as text (repr), so nothing
is rounded on the way.
"""
import json
import sys

try:
    from google.protobuf import json_format
    from google.protobuf.message import DecodeError
    from google.protobuf.unknown_fields import UnknownFieldSet
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
except ImportError as error:
    print(f"opentelemetry-proto is not installed ({error}); run scripts/install-deps.sh", file=sys.stderr)
    sys.exit(3)


def any_value(value):
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return ["string", value.string_value]
    if kind == "int_value":
        return ["int", str(value.int_value)]
    if kind == "double_value":
        return ["double", repr(value.double_value)]
    if kind == "bool_value":
        return ["bool", "true" if value.bool_value else "false"]
    return [kind or "none", ""]


def unknown_fields(message, path="request"):
    """Every field the schema does not have, anywhere in the message, by where it is."""
    found = [f"{path}#{field.field_number}" for field in UnknownFieldSet(message)]
    for descriptor, value in message.ListFields():
        if descriptor.type != descriptor.TYPE_MESSAGE:
            continue
        repeated = descriptor.is_repeated if hasattr(descriptor, "is_repeated") else descriptor.label == descriptor.LABEL_REPEATED
        children = value if repeated else [value]
        for index, child in enumerate(children):
            found += unknown_fields(child, f"{path}.{descriptor.name}[{index}]")
    return found


def attributes(pairs):
    return [[pair.key] + any_value(pair.value) for pair in pairs]


def main():
    arguments = sys.argv[1:]
    binary = arguments[0] == "--protobuf"
    if binary:
        arguments = arguments[1:]
    request_path, summary_path = arguments[0], arguments[1]
    with open(request_path, "rb") as file:
        data = file.read()
    if binary:
        request = ExportLogsServiceRequest()
        try:
            read = request.ParseFromString(data)
        except DecodeError as error:
            print(f"not an ExportLogsServiceRequest: {error}", file=sys.stderr)
            sys.exit(2)
        if read != len(data):
            print(f"not an ExportLogsServiceRequest: {len(data) - read} bytes after it", file=sys.stderr)
            sys.exit(2)
        unknown = unknown_fields(request)
        if unknown:
            print(f"not an ExportLogsServiceRequest: fields the schema does not have: {unknown}", file=sys.stderr)
            sys.exit(2)
    else:
        try:
            request = json_format.Parse(data.decode("utf-8"), ExportLogsServiceRequest(), ignore_unknown_fields=False)
        except json_format.ParseError as error:
            print(f"not an ExportLogsServiceRequest: {error}", file=sys.stderr)
            sys.exit(2)
    summary = []
    for resource_logs in request.resource_logs:
        scopes = []
        for scope_logs in resource_logs.scope_logs:
            records = []
            for record in scope_logs.log_records:
                records.append({
                    "time": str(record.time_unix_nano),
                    "observed": str(record.observed_time_unix_nano),
                    "severityNumber": int(record.severity_number),
                    "severityText": record.severity_text,
                    "body": any_value(record.body),
                    "attributes": attributes(record.attributes),
                    "traceIdBytes": len(record.trace_id),
                })
            scopes.append({
                "name": scope_logs.scope.name,
                "version": scope_logs.scope.version,
                "records": records,
            })
        summary.append({"resource": attributes(resource_logs.resource.attributes), "scopes": scopes})
    with open(summary_path, "w", encoding="utf-8") as file:
        json.dump({"resourceLogs": summary}, file, ensure_ascii=False)


if __name__ == "__main__":
    main()
