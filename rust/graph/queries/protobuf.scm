; protobuf: imports and message types.
(import path: (string) @name) @reference.import
(message_or_enum_type) @name @reference.type
