package dev.stowage.bench;
