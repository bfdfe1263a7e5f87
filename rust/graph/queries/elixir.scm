; Elixir: `import`, `alias`, `use`, `require` (calls come from the grammar's tags query).
(call
  target: (identifier) @_directive
  (arguments . (alias) @name)
  (#any-of? @_directive "import" "alias" "use" "require")) @reference.import
