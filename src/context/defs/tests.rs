//! Whole files in each language, written as projects write them: comments and strings holding
//! braces and keywords, generics and templates, nested types, signatures over several lines.
//! Each outline is `depth name first-last`.

use super::parse;

fn outline(path: &str, text: &str) -> Vec<String> {
    parse(path, text)
        .into_iter()
        .map(|d| {
            format!(
                "{}{} {}-{}",
                "  ".repeat(usize::from(d.depth)),
                d.name,
                d.line,
                d.end
            )
        })
        .collect()
}

#[test]
fn java() {
    let text = r#"package org.example.cache;

import java.util.*;

/**
 * A cache. Example: {@code new Cache<String>() { ... }}
 * class NotAClass {
 */
@SuppressWarnings("unchecked")
public final class Cache<K extends Comparable<K>, V> implements Store<K, V> {
    public static final int MAX_ENTRIES = 1 << 10;
    private final Map<K, List<V>> entries = new HashMap<>();

    public Cache() {
        this("default {");
    }

    @Override
    public <T extends V> Optional<T> get(
            K key,
            Class<T> type) throws CacheException {
        if (key == null) {
            throw new IllegalArgumentException("key } is null");
        }
        return Optional.empty();
    }

    static class Entry<V> {
        final V value;

        Entry(V value) {
            this.value = value;
        }
    }

    enum Policy { LRU, FIFO }

    interface Listener {
        void evicted(String key);
    }
}
"#;
    assert_eq!(
        outline("src/main/java/org/example/cache/Cache.java", text),
        [
            "Cache 10-41",
            "  MAX_ENTRIES 11-11",
            "  entries 12-12",
            "  Cache 14-16",
            "  get 19-26",
            "  Entry 28-34",
            "    value 29-29",
            "    Entry 31-33",
            "  Policy 36-36",
            "  Listener 38-40",
            "    evicted 39-39",
        ]
    );
}

#[test]
fn kotlin() {
    let text = r#"package io.example

import kotlinx.coroutines.flow.Flow

const val DEFAULT_TIMEOUT = 30_000L

/* A comment with fun notAFunction() { */
data class User(val id: Long, val name: String)

sealed class Result<out T> {
    data class Ok<T>(val value: T) : Result<T>()
    object Empty : Result<Nothing>()
}

class UserRepository(
    private val api: Api,
) : Repository {
    private val cache = mutableMapOf<Long, User>()

    suspend fun find(id: Long): User? {
        val template = """
            fun hidden() {
        """
        return cache[id] ?: api.fetch(id)
    }

    fun count() = cache.size

    companion object {
        fun create(): UserRepository = UserRepository(Api())
    }
}

fun <T> Flow<T>.firstOrDefault(default: T): T = default
"#;
    assert_eq!(
        outline("app/src/main/kotlin/UserRepository.kt", text),
        [
            "DEFAULT_TIMEOUT 5-5",
            "User 8-8",
            "Result 10-13",
            "  Ok 11-11",
            "  Empty 12-12",
            "UserRepository 15-32",
            "  cache 18-18",
            "  find 20-25",
            "  count 27-27",
            "   29-31",
            "  create 30-30",
            "firstOrDefault 34-34",
        ]
    );
}

#[test]
fn csharp() {
    let text = r#"using System;
using System.Threading.Tasks;

namespace Acme.Billing
{
    // class Commented { }
    [Serializable]
    public sealed class Invoice : IEquatable<Invoice>
    {
        public const decimal TaxRate = 0.2m;

        public string Number { get; init; }

        public Invoice(string number)
        {
            Number = number ?? throw new ArgumentNullException(nameof(number));
        }

        public async Task<decimal> TotalAsync(
            IPriceList prices,
            CancellationToken ct = default)
        {
            var path = @"C:\invoices\{";
            return await prices.SumAsync(Number, ct);
        }

        public bool Equals(Invoice? other) => other?.Number == Number;

        private struct Line
        {
            public int Quantity;
        }
    }

    public enum Status { Draft, Sent, Paid }
}
"#;
    assert_eq!(
        outline("src/Billing/Invoice.cs", text),
        [
            "Billing 4-36",
            "Invoice 8-33",
            "  TaxRate 10-10",
            "  Number 12-12",
            "  Invoice 14-17",
            "  TotalAsync 19-25",
            "  Equals 27-27",
            "  Line 29-32",
            "    Quantity 31-31",
            "Status 35-35",
        ]
    );
}

#[test]
fn swift() {
    let text = r#"import Foundation

/// A cache.
/// - Note: `func notAFunction() {`
public protocol Cache: AnyObject {
    associatedtype Key: Hashable
    func value(for key: Key) -> Data?
}

public final class DiskCache<Key: Hashable>: Cache {
    private let directory: URL
    static let defaultName = "cache {"

    public init(directory: URL) {
        self.directory = directory
    }

    @discardableResult
    public func store(_ data: Data,
                      for key: Key) throws -> URL {
        let url = directory.appendingPathComponent("\(key)")
        try data.write(to: url)
        return url
    }

    public func value(for key: Key) -> Data? { nil }

    struct Stats {
        var hits = 0
    }
}

extension DiskCache: CustomStringConvertible {
    public var description: String { "DiskCache(\(directory))" }
}
"#;
    assert_eq!(
        outline("Sources/Cache/DiskCache.swift", text),
        [
            "Cache 5-8",
            "  value 7-7",
            "DiskCache 10-31",
            "  directory 11-11",
            "  defaultName 12-12",
            "  init 14-16",
            "  store 19-24",
            "  value 26-26",
            "  Stats 28-30",
            "    hits 29-29",
            "DiskCache 33-35",
            "  description 34-34",
        ]
    );
}

#[test]
fn php() {
    let text = r#"<?php

namespace App\Http;

use Symfony\Component\HttpFoundation\Response;

define('APP_VERSION', '2.1');

/**
 * function notAFunction() {
 */
#[Attribute]
final class RedirectResponse extends Response implements Stringable
{
    public const DEFAULT_STATUS = 302;

    private string $target;

    public function __construct(string $url, int $status = self::DEFAULT_STATUS)
    {
        $html = <<<HTML
            <a href="{$url}">function hidden() {</a>
            HTML;
        parent::__construct($html, $status);
    }

    public static function &to(string $url): static
    {
        return new static($url);
    }
}

interface Middleware
{
    public function handle(Request $request, callable $next): Response;
}

function redirect(string $url): RedirectResponse
{
    return new RedirectResponse($url);
}
"#;
    assert_eq!(
        outline("src/Http/RedirectResponse.php", text),
        [
            "Http 3-3",
            "APP_VERSION 7-7",
            "RedirectResponse 13-31",
            "  DEFAULT_STATUS 15-15",
            "  __construct 19-25",
            "  to 27-30",
            "Middleware 33-36",
            "  handle 35-35",
            "redirect 38-41",
        ]
    );
}

#[test]
fn ruby() {
    let text = r#"# frozen_string_literal: true

module RuboCop
  module Cop
    module Style
      # Checks for redundant parentheses.
      #   def not_a_method
      class RedundantParentheses < Base
        MSG = "Don't use parentheses around %<node>s. end"

        def on_begin(node)
          return unless parentheses?(node)

          offense(node) if node.children.first.send_type?
          node.each_child_node do |child|
            check(child)
          end
        end

        def self.autocorrect_incompatible_with
          [Style::Lambda]
        end

        private

        def parentheses?(node) = node.loc.begin&.is?('(')

        def offense(node)
          message = <<~TEXT
            def hidden
          TEXT
          add_offense(node, message: message)
        end
      end
    end
  end
end
"#;
    assert_eq!(
        outline("lib/rubocop/cop/style/redundant_parentheses.rb", text),
        [
            "RuboCop 3-37",
            "Cop 4-36",
            "Style 5-35",
            "RedundantParentheses 8-34",
            "  MSG 9-9",
            "  on_begin 11-18",
            "  autocorrect_incompatible_with 20-22",
            "  parentheses? 26-26",
            "  offense 28-33",
        ]
    );
}

#[test]
fn c() {
    let text = r#"/* url.c -- parse URLs { */
#include <stdlib.h>
#include "url.h"

#define MAX_URL 2048
#define IS_SEP(c) ((c) == '/' || \
                   (c) == '{')

typedef struct url_part {
    const char *text;
    size_t len;
} url_part;

typedef struct {
    int port;
} endpoint;

static const char *const SCHEMES[] = {"http", "https", "ftp"};

static int
parse_port(const char *s, int *out)
{
    if (*s == '}') {
        return -1;
    }
    *out = atoi(s);
    return 0;
}

#ifdef _WIN32
int url_parse(const char *url, struct url *out, unsigned flags) {
#else
int url_parse(const char *url, struct url *out) {
#endif
    char buf[MAX_URL];
    return parse_port(url, &out->port);
}

void url_free(struct url *u);
"#;
    assert_eq!(
        outline("lib/url.c", text),
        [
            "MAX_URL 5-5",
            "IS_SEP 6-7",
            "url_part 9-12",
            "  text 10-10",
            "  len 11-11",
            "endpoint 14-16",
            "  port 15-15",
            "SCHEMES 18-18",
            "parse_port 21-28",
            "url_parse 31-37",
            "url_free 39-39",
        ]
    );
}

#[test]
fn cpp() {
    let text = r#"#pragma once
#include <string>
#include <vector>

namespace json {
namespace detail {

// class Commented {
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
constexpr T clamp_index(T value, T size) noexcept {
    return value < 0 ? 0 : (value >= size ? size - 1 : value);
}

}  // namespace detail

class Parser final : public Base {
public:
    explicit Parser(std::string text);
    ~Parser() override;

    template <typename Visitor>
    void visit(Visitor&& v) const {
        auto raw = R"(a { brace)";
        v(raw);
    }

    bool operator==(const Parser& other) const;

private:
    struct Token {
        int kind;
    };
    std::vector<Token> tokens_;
};

std::vector<Parser::Token> Parser::tokenize(
    const std::string& text,
    bool strict) {
    return {};
}

}  // namespace json
"#;
    assert_eq!(
        outline("src/json/parser.hpp", text),
        [
            "json 5-42",
            "detail 6-14",
            "clamp_index 10-12",
            "Parser 16-34",
            "  Parser 18-18",
            "  Parser 19-19",
            "  visit 22-25",
            "  operator 27-27",
            "  Token 30-32",
            "    kind 31-31",
            "  tokens_ 33-33",
            "tokenize 36-40",
        ]
    );
}

#[test]
fn map_lines_have_signatures_over_several_lines_and_no_fields() {
    let text = "public class A {\n    private int count;\n    public void run(\n            int times,\n            String label) {\n    }\n}\n";
    assert_eq!(
        super::definitions("A.java", text),
        [
            "public class A",
            "  public void run(int times, String label)"
        ]
    );
}
