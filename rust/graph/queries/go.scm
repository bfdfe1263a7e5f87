; Go: calls, imports, embedded types, every type name.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (parenthesized_expression (identifier) @name)) @reference.call
(import_spec path: (interpreted_string_literal) @name) @reference.import
(field_declaration !name type: (type_identifier) @name) @reference.inherit
(field_declaration !name type: (qualified_type name: (type_identifier) @name)) @reference.inherit
(type_elem (type_identifier) @name) @reference.inherit
(type_identifier) @name @reference.type
(call_expression function: (selector_expression field: (field_identifier) @name)) @reference.call
