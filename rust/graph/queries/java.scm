; Java: calls, `new`, imports, superclasses and interfaces, every type name.
(method_invocation name: (identifier) @name) @reference.call
(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(import_declaration (scoped_identifier) @name) @reference.import
(superclass (type_identifier) @name) @reference.inherit
(superclass (generic_type (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(extends_interfaces (type_list (type_identifier) @name)) @reference.inherit
(extends_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(type_identifier) @name @reference.type
