; Scala: calls, `new`, imports, `extends`/`with`, every type name.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression field: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(instance_expression (type_identifier) @name) @reference.call
(import_declaration (identifier) @name) @reference.import
(extends_clause (type_identifier) @name) @reference.inherit
(extends_clause type: (generic_type type: (type_identifier) @name)) @reference.inherit
(type_identifier) @name @reference.type
