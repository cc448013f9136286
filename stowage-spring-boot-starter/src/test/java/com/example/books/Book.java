package com.example.books;

public record Book(String isbn, String title) {}
