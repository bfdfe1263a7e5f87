; C#: calls, `new`, `using`, base types, declared types.
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression function: (member_access_expression expression: (_) @receiver name: (identifier) @name)) @reference.call
(invocation_expression function: (member_access_expression name: (generic_name (identifier) @name))) @reference.call
(object_creation_expression type: (identifier) @name) @reference.call
(object_creation_expression type: (generic_name (identifier) @name)) @reference.call
(object_creation_expression type: (qualified_name name: (identifier) @name)) @reference.call
(using_directive (qualified_name) @name) @reference.import
(using_directive (identifier) @name) @reference.import
(base_list (identifier) @name) @reference.inherit
(base_list (generic_name (identifier) @name)) @reference.inherit
(base_list (qualified_name name: (identifier) @name)) @reference.inherit
(parameter type: (identifier) @name) @reference.type
(parameter type: (generic_name (identifier) @name)) @reference.type
(variable_declaration type: (identifier) @name) @reference.type
(variable_declaration type: (generic_name (identifier) @name)) @reference.type
(property_declaration type: (identifier) @name) @reference.type
(method_declaration returns: (identifier) @name) @reference.type
(method_declaration returns: (generic_name (identifier) @name)) @reference.type
(type_argument_list (identifier) @name) @reference.type
(invocation_expression function: (member_access_expression name: (identifier) @name)) @reference.call
