; TypeScript: heritage clauses and every type name.
(extends_clause value: (identifier) @name) @reference.inherit
(extends_clause value: (member_expression property: (property_identifier) @name)) @reference.inherit
(implements_clause (type_identifier) @name) @reference.inherit
(implements_clause (generic_type name: (type_identifier) @name)) @reference.inherit
(extends_type_clause type: (type_identifier) @name) @reference.inherit
(type_identifier) @name @reference.type
