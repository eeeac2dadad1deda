// Unit tests that the Python built-in ports answer as CPython does: float repr, repr of JSON
// values, float/int/bool conversion, Unicode strip and the error messages. policy/python only.
#include "policy/python/python_values.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "policy/base/errors.hpp"

namespace ckpt::python {
namespace {

using nlohmann::json;

TEST(PythonValues, FloatReprMatchesPython) {
    EXPECT_EQ(float_repr(1.0), "1.0");
    EXPECT_EQ(float_repr(0.1), "0.1");
    EXPECT_EQ(float_repr(-2.5), "-2.5");
    EXPECT_EQ(float_repr(1e16), "1e+16");
    EXPECT_EQ(float_repr(1234567890123456.0), "1234567890123456.0");
    EXPECT_EQ(float_repr(0.0001), "0.0001");
    EXPECT_EQ(float_repr(0.00001), "1e-05");
    EXPECT_EQ(float_repr(1.5e-7), "1.5e-07");
    EXPECT_EQ(float_repr(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(float_repr(-std::numeric_limits<double>::infinity()), "-inf");
    EXPECT_EQ(float_repr(std::numeric_limits<double>::quiet_NaN()), "nan");
}

TEST(PythonValues, ReprOfJsonValues) {
    EXPECT_EQ(repr(json(nullptr)), "None");
    EXPECT_EQ(repr(json(true)), "True");
    EXPECT_EQ(repr(json("it's")), "\"it's\"");
    EXPECT_EQ(repr(json("a")), "'a'");
    EXPECT_EQ(repr(json::parse("[1, 2.0, \"x\"]")), "[1, 2.0, 'x']");
    EXPECT_EQ(repr(json::parse(R"({"a": null})")), "{'a': None}");
}

TEST(PythonValues, FloatConversion) {
    EXPECT_EQ(to_float(json(" 1_000.5 ")), 1000.5);
    EXPECT_EQ(to_float(json(true)), 1.0);
    EXPECT_TRUE(std::isinf(to_float(json("-Infinity"))));
    EXPECT_TRUE(std::isnan(to_float(json("NaN"))));
    EXPECT_THROW(to_float(json("1__0")), ValueError);
    EXPECT_THROW(to_float(json("0x10")), ValueError);
    EXPECT_THROW(to_float(json(nullptr)), ValueError);
}

TEST(PythonValues, IntConversion) {
    EXPECT_EQ(to_int(json(3.99)), 3);
    EXPECT_EQ(to_int(json(-3.99)), -3);
    EXPECT_EQ(to_int(json(" -42 ")), -42);
    EXPECT_EQ(to_int(json(false)), 0);
    EXPECT_THROW(to_int(json("4.0")), ValueError);
    EXPECT_THROW(to_int(json(std::numeric_limits<double>::quiet_NaN())), ValueError);
    EXPECT_THROW(to_int(json::array()), ValueError);
}

TEST(PythonValues, Truthiness) {
    EXPECT_FALSE(truthy(json(nullptr)));
    EXPECT_FALSE(truthy(json(0.0)));
    EXPECT_FALSE(truthy(json("")));
    EXPECT_FALSE(truthy(json::object()));
    EXPECT_TRUE(truthy(json("false")));
    EXPECT_TRUE(truthy(json::array({0})));
}

}  // namespace
}  // namespace ckpt::python

namespace ckpt::python {
namespace {

TEST(PythonValues, StripsPythonWhitespaceIncludingUnicodeSpaces) {
    EXPECT_EQ(strip("\xc2\xa0"
                    "1.5\xe3\x80\x80"),
              "1.5");                                    // U+00A0 ... U+3000
    EXPECT_EQ(strip("\x1creset\xe2\x80\xaf"), "reset");  // \x1c ... U+202F
    EXPECT_EQ(strip("\xe2\x80\x8b"
                    "x"),
              "\xe2\x80\x8b"
              "x");  // U+200B is not whitespace in Python
    EXPECT_EQ(to_float(json("\xe2\x80\xa8"
                            "2.5")),
              2.5);  // U+2028
}

TEST(PythonValues, ConversionErrorsNameThePythonType) {
    try {
        to_int(json(nullptr));
        FAIL();
    } catch (const ValueError& e) {
        EXPECT_STREQ(e.what(),
                     "int() argument must be a string, a bytes-like object or a real number, not 'NoneType'");
    }
    try {
        to_float(json::array());
        FAIL();
    } catch (const ValueError& e) {
        EXPECT_STREQ(e.what(), "float() argument must be a string or a real number, not 'list'");
    }
}

}  // namespace
}  // namespace ckpt::python
