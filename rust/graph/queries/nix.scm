; Nix: function applications, `import ./path`.
(apply_expression function: (variable_expression name: (identifier) @name)) @reference.call
(apply_expression function: (select_expression attrpath: (attrpath attr: (identifier) @name .))) @reference.call
(apply_expression
  function: (variable_expression name: (identifier) @_import)
  argument: (path_expression) @name
  (#eq? @_import "import")) @reference.import
