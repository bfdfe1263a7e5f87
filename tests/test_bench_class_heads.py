"""The C++ class-head check (`benches.quality.class_heads`): which lines it counts as the
head of a class definition, on a small header written as Eigen's are."""

from __future__ import annotations


def test_class_heads_are_definitions_not_declarations_or_specialisations() -> None:
    from benches.quality.class_heads import class_heads

    source = (
        "template<typename Derived> class DenseBase\n"
        "#ifndef EIGEN_PARSED_BY_DOXYGEN\n  : public Base<Derived>\n#endif\n{\n};\n"
        "class EIGEN_API Matrix : public PlainObjectBase<Matrix> {\n"
        "  struct Inner {};\n};\n"
        "template<typename T> struct traits;\n"  # a forward declaration
        "template<> struct traits<Matrix> {};\n"  # a specialisation
        "// class Commented is prose, not code\n"
        "struct Plain\n{\n};\n"
    )
    assert list(class_heads(source)) == [
        ("DenseBase", 1), ("Matrix", 7), ("Inner", 8), ("Plain", 13),
    ]
