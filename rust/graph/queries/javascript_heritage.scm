; JavaScript: `class A extends B`.
(class_heritage (identifier) @name) @reference.inherit
(class_heritage (member_expression property: (property_identifier) @name)) @reference.inherit
