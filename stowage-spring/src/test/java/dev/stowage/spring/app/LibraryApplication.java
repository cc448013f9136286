package dev.stowage.spring.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The test application: the starter's auto-configuration and {@link LibraryService}, nothing else.
 */
@SpringBootApplication
public class LibraryApplication {}
