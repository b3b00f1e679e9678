package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable that points tests at an existing server.
const EnvURL = "TEST_DATABASE_URL"

// localURL is the developer machine's server, trust authentication.
const localURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable&connect_timeout=2"

// Database is a fresh database for one test process.
type Database struct {
	// DSN connects to the database.
	DSN string
	// Source says which server holds it, for test logs.
	Source string

	serverURL string
	name      string
	cluster   *cluster
}

// New returns a fresh database on the first server that works (see the
// package doc), or an error explaining why none did.
func New(ctx context.Context) (*Database, error) {
	var why []string
	if env := os.Getenv(EnvURL); env != "" {
		db, err := onServer(ctx, env, EnvURL, nil)
		if err == nil {
			return db, nil
		}
		why = append(why, fmt.Sprintf("%s: %v", EnvURL, err))
	} else {
		why = append(why, EnvURL+" is not set")
	}
	if db, err := onServer(ctx, localURL, "127.0.0.1:5432", nil); err == nil {
		return db, nil
	} else {
		why = append(why, fmt.Sprintf("127.0.0.1:5432 as user postgres: %v", err))
	}
	db, err := Throwaway(ctx)
	if err != nil {
		why = append(why, err.Error())
		return nil, fmt.Errorf("pgtest: no PostgreSQL server for the specs:\n  - %s", strings.Join(why, "\n  - "))
	}
	return db, nil
}

// Throwaway always starts a private cluster (the third choice of New) and
// returns a fresh database on it; Close stops the cluster.
func Throwaway(ctx context.Context) (*Database, error) {
	c, err := startCluster()
	if err != nil {
		return nil, fmt.Errorf("throwaway cluster: %w", err)
	}
	db, err := onServer(ctx, c.url, "throwaway cluster "+c.dir, c)
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("throwaway cluster: %w", err)
	}
	return db, nil
}

// onServer creates a fresh database on the server at serverURL.
func onServer(ctx context.Context, serverURL, source string, c *cluster) (*Database, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	name := fmt.Sprintf("keygate_test_%d_%x", os.Getpid(), time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	dsn, err := withDatabase(serverURL, name)
	if err != nil {
		return nil, err
	}
	return &Database{DSN: dsn, Source: source, serverURL: serverURL, name: name, cluster: c}, nil
}

// Close drops the database and stops a throwaway cluster. Safe to call on
// nil and more than once.
func (d *Database) Close() error {
	if d == nil || d.name == "" {
		return nil
	}
	var errs []error
	if d.cluster == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, d.serverURL)
		if err == nil {
			_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+d.name+" WITH (FORCE)")
			errs = append(errs, err, conn.Close(ctx))
		} else {
			errs = append(errs, err)
		}
	} else {
		d.cluster.stop()
	}
	d.name = ""
	return errors.Join(errs...)
}

// withDatabase points a URL or key=value DSN at database name.
func withDatabase(dsn, name string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("parse server url: %w", err)
		}
		u.Path = "/" + name
		return u.String(), nil
	}
	return dsn + " dbname=" + name, nil
}
