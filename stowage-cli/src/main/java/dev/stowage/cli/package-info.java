package dev.stowage.cli;
